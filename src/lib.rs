//! # texla: GPGPU linear algebra in a browser tab
//!
//! Matrices live on the GPU as RGBA32F textures, four rows of one column per texel
//! ([`layout`]), and are computed on with fragment shaders ([`kernel`], `shaders/`), on WebGPU
//! (wgpu) or WebGL2 (glow) ([`backend`]). Everything a kernel or solver needs goes through the
//! [`device::Device`] trait; nothing above [`backend`] touches wgpu or glow.
//!
//! This file holds the module list and the JavaScript API (`Gpgpu`, `GpuMatrix`).
#![warn(missing_docs)]

pub mod backend;
pub mod device;
pub mod error;
pub mod expr;
pub mod gpu;
pub mod kernel;
pub mod layout;
pub mod matrix;
pub mod physics;
pub mod pool;
pub mod problems;
pub mod reference;
pub mod scene;
pub mod solver;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicU32, Ordering};

use js_sys::{Float32Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::device::{Choice, Device};
use crate::error::Error;
use crate::expr::Expr;
use crate::gpu::ops;
use crate::matrix::Matrix;
use crate::solver::{Observer, Solution};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** What `Gpgpu.capabilities()` returns: the facts of the page's capability panel. */
export interface Capabilities {
  /** "webgpu" or "webgl2". */
  backend: "webgpu" | "webgl2";
  /** The adapter (WebGPU) or renderer (WebGL2), as the browser names it. */
  adapter: string;
  /** Largest texture side: matrices up to 4*max rows and max columns. */
  maxTextureSize: number;
  /** Why this backend runs and why the other one was not used. */
  reason: string;
}

/** Options of `Gpgpu.cg`. */
export interface CgOptions { x0?: GpuMatrix; tol?: number; maxIter?: number; fused?: boolean;
  onProgress?: (iteration: number, of: number, residual: number | null) => void; signal?: AbortSignal; }
/** Options of `Gpgpu.jacobi`. */
export interface JacobiOptions { tol?: number; maxIter?: number; checkEvery?: number;
  onProgress?: (iteration: number, of: number, residual: number | null) => void; signal?: AbortSignal; }
/** Options of `Gpgpu.lcpJacobi`; omega is negative (x + omega D (Ax + b)). */
export interface LcpOptions { omega?: number; iterations?: number; x0?: GpuMatrix; residual?: boolean;
  onProgress?: (iteration: number, of: number, residual: number | null) => void; signal?: AbortSignal; }
/** Options of `Gpgpu.lcpJacobiCompute`: as `LcpOptions`, without progress, plus the number of
 * workgroups that share the rows (1 needs no GPU-wide barrier). */
export interface LcpComputeOptions { omega?: number; iterations?: number; x0?: GpuMatrix; residual?: boolean;
  workgroups?: number; }
/** What the solvers resolve to: the solution stays on the GPU. */
export interface SolveResult { x: GpuMatrix; iterations: number; residuals: Float64Array;
  converged: boolean; passes: number; readbacks: number; }
/** A test problem with its known solution x. */
export interface Problem { n: number; a: Float32Array; b: Float32Array; x: Float64Array; }

/** What `Gpgpu.memory()` returns: textures held by matrices and kept for reuse, and the most
 * bytes (live plus pooled) held at once since the Gpgpu opened or since `resetPeak()`. */
export interface MemoryStats {
  liveTextures: number;
  liveBytes: number;
  pooledTextures: number;
  pooledBytes: number;
  peakBytes: number;
}
"#;

/// A GPU for linear algebra, on WebGPU or WebGL2.
#[wasm_bindgen]
pub struct Gpgpu {
    device: Rc<dyn Device>,
    reason: String,
    /// This device's matrices by id, so that arrays of matrices can be passed from JS.
    registry: Rc<RefCell<HashMap<u32, Weak<Slot>>>>,
}

/// Wraps a device call whose result is a matrix: `Ok(GpuMatrix)` or a thrown `Error`.
macro_rules! matrix_op {
    ($self:ident, $call:expr) => {{
        let m = $call?;
        Ok($self.wrap(m))
    }};
}

#[wasm_bindgen]
impl Gpgpu {
    /// Opens a GPU: `"auto"` (the default) tries WebGPU, then WebGL2; `"webgpu"` or `"webgl2"`
    /// forces one. Rejects with a message naming what is missing when nothing works.
    pub async fn create(
        #[wasm_bindgen(unchecked_param_type = "\"auto\" | \"webgpu\" | \"webgl2\" | undefined")]
        backend: Option<String>,
    ) -> Result<Gpgpu, JsValue> {
        console_error_panic_hook::set_once();
        let choice: Choice = backend.as_deref().unwrap_or("auto").parse()?;
        let opened = device::open(choice).await?;
        Ok(Gpgpu {
            device: Rc::from(opened.device),
            reason: opened.reason,
            registry: Rc::default(),
        })
    }

    /// The backend that runs: "webgpu" or "webgl2".
    #[wasm_bindgen(getter, unchecked_return_type = "\"webgpu\" | \"webgl2\"")]
    pub fn backend(&self) -> String {
        self.device.capabilities().backend.name().into()
    }

    /// Backend, adapter, maximum texture size and why this backend was chosen.
    #[wasm_bindgen(unchecked_return_type = "Capabilities")]
    pub fn capabilities(&self) -> Object {
        let caps = self.device.capabilities();
        object(&[
            ("backend", self.backend().into()),
            ("adapter", caps.adapter.clone().into()),
            ("maxTextureSize", caps.max_texture_size.into()),
            ("reason", self.reason.clone().into()),
        ])
    }

    /// Uploads `rows x cols` row-major values (a Float32Array, or an array of numbers).
    pub fn upload(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float32Array | number[]")] data: &JsValue,
        rows: f64,
        cols: f64,
    ) -> Result<GpuMatrix, JsValue> {
        let data = if let Some(f) = data.dyn_ref::<Float32Array>() {
            f.to_vec()
        } else if js_sys::Array::is_array(data) {
            Float32Array::new(data).to_vec()
        } else {
            return Err(
                Error::Shape("data must be a Float32Array or an array of numbers".into()).into(),
            );
        };
        let (rows, cols) = (dimension("rows", rows)?, dimension("cols", cols)?);
        matrix_op!(self, self.device.upload(&data, rows, cols))
    }

    /// `a * b`, computed on the GPU; the result stays there until read.
    pub fn matmul(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.mul(&a.matrix()?, &b.matrix()?))
    }

    /// `a * b` on the WebGPU compute path (workgroup tiling, 4 texels per thread); on WebGL2 a
    /// clear error. Same result layout as `matmul`, so the two mix freely.
    #[wasm_bindgen(js_name = matmulCompute)]
    pub fn matmul_compute(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.mul_compute(&a.matrix()?, &b.matrix()?))
    }

    /// `a * b` with the fast fragment kernel: several output texels per fragment, one per
    /// render target, so each A texel fetched serves them all (`matmul` is the teaching kernel).
    #[wasm_bindgen(js_name = matmulFast)]
    pub fn matmul_fast(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.mul_fast(&a.matrix()?, &b.matrix()?))
    }

    /// `m * m` for a square `m`.
    pub fn square(&self, m: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.square(&m.matrix()?))
    }

    /// `m * m` for a square `m`, with the fast fragment kernel of `matmulFast`.
    #[wasm_bindgen(js_name = squareFast)]
    pub fn square_fast(&self, m: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.square_fast(&m.matrix()?))
    }

    /// `a^T * b`, without building the transpose.
    #[wasm_bindgen(js_name = trMul)]
    pub fn tr_mul(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.tr_mul(&a.matrix()?, &b.matrix()?))
    }

    /// `a * b^T`, without building the transpose.
    #[wasm_bindgen(js_name = mulTr)]
    pub fn mul_tr(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.mul_tr(&a.matrix()?, &b.matrix()?))
    }

    /// `a^T`.
    pub fn transpose(&self, a: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.transpose(&a.matrix()?))
    }

    /// `a * x` for a column vector x, blocked: partial sums in many fragments, then a reduction.
    #[wasm_bindgen(js_name = mulVec)]
    pub fn mul_vec(&self, a: &GpuMatrix, x: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.mul_vec(&a.matrix()?, &x.matrix()?))
    }

    /// `a * x`, one fragment per four output rows: the naive kernel, for comparison.
    #[wasm_bindgen(js_name = mulVecNaive)]
    pub fn mul_vec_naive(&self, a: &GpuMatrix, x: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, self.device.mul_vec_naive(&a.matrix()?, &x.matrix()?))
    }

    /// `a * x` on the WebGPU compute path (one dispatch, partial sums in workgroup memory); on
    /// WebGL2 a clear error.
    #[wasm_bindgen(js_name = mulVecCompute)]
    pub fn mul_vec_compute(&self, a: &GpuMatrix, x: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        matrix_op!(
            self,
            self.device.mul_vec_compute(&a.matrix()?, &x.matrix()?)
        )
    }

    /// A copy of `a`.
    pub fn copy(&self, a: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::copy(), &[a])
    }

    /// `a + b`.
    pub fn add(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::add(), &[a, b])
    }

    /// `a - b`.
    pub fn sub(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::sub(), &[a, b])
    }

    /// `a .* b`, element by element.
    #[wasm_bindgen(js_name = componentMul)]
    pub fn component_mul(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::component_mul(), &[a, b])
    }

    /// `a * c` for a number c.
    pub fn scale(&self, a: &GpuMatrix, c: f32) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::scale(c), &[a])
    }

    /// `max(a, c)` element by element.
    #[wasm_bindgen(js_name = maxScalar)]
    pub fn max_scalar(&self, a: &GpuMatrix, c: f32) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::max_scalar(c), &[a])
    }

    /// `a + b * c` for a number c.
    #[wasm_bindgen(js_name = addScaled)]
    pub fn add_scaled(&self, a: &GpuMatrix, b: &GpuMatrix, c: f32) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::add_scaled(c), &[a, b])
    }

    /// `a + (b + c) .* d`, seed 000's madad.
    pub fn madad(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        c: &GpuMatrix,
        d: &GpuMatrix,
    ) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::madad(), &[a, b, c, d])
    }

    /// An element-wise expression in ONE pass, e.g. `map("a * cos(b) / sqrt(c)", [A, B, C])`:
    /// inputs `a`..`f`, numbers, `+ - * / ^`, and the functions of `Gpgpu.functions()`.
    pub fn map(
        &self,
        expr: &str,
        #[wasm_bindgen(unchecked_param_type = "GpuMatrix[]")] inputs: &js_sys::Array,
    ) -> Result<GpuMatrix, JsValue> {
        let expr = Expr::parse(expr)?;
        let inputs = self.matrices(inputs)?;
        let refs: Vec<&Matrix> = inputs.iter().collect();
        matrix_op!(self, self.device.map(&expr, &refs))
    }

    /// The expression as JavaScript float64 over variables a..f (`Math.*`): the page's reference.
    #[wasm_bindgen(js_name = expressionAsJavaScript)]
    pub fn expression_as_javascript(expr: &str) -> Result<String, JsValue> {
        Ok(Expr::parse(expr)?.javascript())
    }

    /// `[sin(a), cos(a)]`: both in ONE pass (two render targets), as VML's sincos.
    #[wasm_bindgen(unchecked_return_type = "[GpuMatrix, GpuMatrix]")]
    pub fn sincos(&self, a: &GpuMatrix) -> Result<js_sys::Array, JsValue> {
        let a = a.matrix()?;
        let (s, c) = self.device.map2(
            &Expr::call(expr::Func::Sin, Expr::Input(0)),
            &Expr::call(expr::Func::Cos, Expr::Input(0)),
            &[&a],
        )?;
        Ok(js_sys::Array::of2(
            &self.wrap(s).into(),
            &self.wrap(c).into(),
        ))
    }

    /// Names of the functions `map` knows.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn functions() -> js_sys::Array {
        expr::function_names()
            .into_iter()
            .map(JsValue::from)
            .collect()
    }

    /// A `rows x cols` matrix of zeros.
    pub fn zeros(&self, rows: f64, cols: f64) -> Result<GpuMatrix, JsValue> {
        self.fill(rows, cols, 0.0)
    }

    /// A `rows x cols` matrix of `value`.
    pub fn fill(&self, rows: f64, cols: f64, value: f32) -> Result<GpuMatrix, JsValue> {
        let (rows, cols) = (dimension("rows", rows)?, dimension("cols", cols)?);
        matrix_op!(self, self.device.fill(rows, cols, value))
    }

    /// The `rows x cols` identity (`cols` defaults to `rows`).
    pub fn identity(&self, rows: f64, cols: Option<f64>) -> Result<GpuMatrix, JsValue> {
        let (rows, cols) = (
            dimension("rows", rows)?,
            dimension("cols", cols.unwrap_or(rows))?,
        );
        matrix_op!(self, self.device.identity(rows, cols))
    }

    /// `sum a_ij b_ij` (`a^T b` for vectors), reduced on the GPU; only the number is read back.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn dot(&self, a: &GpuMatrix, b: &GpuMatrix) -> Promise {
        let (device, a, b) = (self.device.clone(), a.matrix(), b.matrix());
        future_to_promise(async move { Ok(device.dot(&a?, &b?).await?.into()) })
    }

    /// `dot(a, a)`, the squared Euclidean (Frobenius) norm.
    #[wasm_bindgen(js_name = normSquared, unchecked_return_type = "Promise<number>")]
    pub fn norm_squared(&self, a: &GpuMatrix) -> Promise {
        self.dot(a, a)
    }

    /// The sum of all elements, reduced on the GPU.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn sum(&self, a: &GpuMatrix) -> Promise {
        let (device, a) = (self.device.clone(), a.matrix());
        future_to_promise(async move { Ok(device.sum_all(&a?).await?.into()) })
    }

    /// Conjugate gradients for symmetric positive definite A. Options: `x0` (warm start), `tol`
    /// (relative residual, default 1e-6), `maxIter` (default 1000), `fused` (x and r updated in
    /// one two-target pass), `onProgress(iteration, of, residual)`, `signal` (an AbortSignal).
    #[wasm_bindgen(unchecked_return_type = "Promise<SolveResult>")]
    pub fn cg(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_param_type = "CgOptions | undefined")] options: JsValue,
    ) -> Promise {
        let defaults = solver::CgOptions::default();
        let args = (|| {
            let x0 = self.option_matrix(&options, "x0")?;
            let opts = solver::CgOptions {
                tol: option_number(&options, "tol")?.unwrap_or(defaults.tol),
                max_iter: option_count(&options, "maxIter")?.unwrap_or(defaults.max_iter),
                fused: option_bool(&options, "fused"),
            };
            Ok::<_, Error>((a.matrix()?, b.matrix()?, x0, opts))
        })();
        self.solve(
            options.clone(),
            args,
            |device, (a, b, x0, opts), observe| {
                Box::pin(
                    async move { solver::cg(device, &a, &b, x0.as_ref(), opts, observe).await },
                )
            },
        )
    }

    /// Jacobi's method for Ax = b from x = 0. Options: `tol` (default 1e-6), `maxIter` (default
    /// 1000), `checkEvery` (residual read-back interval, default 1), `onProgress`, `signal`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SolveResult>")]
    pub fn jacobi(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_param_type = "JacobiOptions | undefined")] options: JsValue,
    ) -> Promise {
        let defaults = solver::JacobiOptions::default();
        let args = (|| {
            let opts = solver::JacobiOptions {
                tol: option_number(&options, "tol")?.unwrap_or(defaults.tol),
                max_iter: option_count(&options, "maxIter")?.unwrap_or(defaults.max_iter),
                check_every: option_count(&options, "checkEvery")?.unwrap_or(defaults.check_every),
            };
            Ok::<_, Error>((a.matrix()?, b.matrix()?, opts))
        })();
        self.solve(options.clone(), args, |device, (a, b, opts), observe| {
            Box::pin(async move { solver::jacobi(device, &a, &b, opts, observe).await })
        })
    }

    /// Projected Jacobi for the LCP x >= 0, Ax + b >= 0, x^T (Ax + b) = 0. Options: `omega`
    /// (negative, the seed's convention; default -0.1), `iterations` (default 100), `x0`,
    /// `residual` (measure max |min(x, Ax + b)| at the end; default true), `onProgress`, `signal`.
    #[wasm_bindgen(js_name = lcpJacobi, unchecked_return_type = "Promise<SolveResult>")]
    pub fn lcp_jacobi(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_param_type = "LcpOptions | undefined")] options: JsValue,
    ) -> Promise {
        let args = (|| {
            let (x0, opts) = self.lcp_options(&options)?;
            Ok::<_, Error>((a.matrix()?, b.matrix()?, x0, opts))
        })();
        self.solve(
            options.clone(),
            args,
            |device, (a, b, x0, opts), observe| {
                Box::pin(async move {
                    solver::lcp_jacobi(device, &a, &b, x0.as_ref(), opts, observe).await
                })
            },
        )
    }

    /// Projected Jacobi for the LCP with every iteration in ONE compute dispatch (WebGPU only;
    /// on WebGL2 the promise rejects with a clear error). Options as `lcpJacobi` (no progress:
    /// nothing comes back until the end), plus `workgroups` (default: 1 on a software adapter,
    /// else one per 16 rows, at most 128).
    #[wasm_bindgen(js_name = lcpJacobiCompute, unchecked_return_type = "Promise<SolveResult>")]
    pub fn lcp_jacobi_compute(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_param_type = "LcpComputeOptions | undefined")] options: JsValue,
    ) -> Promise {
        let args = (|| {
            let (x0, opts) = self.lcp_options(&options)?;
            let workgroups = option_count(&options, "workgroups")?;
            Ok::<_, Error>((a.matrix()?, b.matrix()?, x0, opts, workgroups))
        })();
        self.solve(
            options.clone(),
            args,
            |device, (a, b, x0, opts, workgroups), _observe| {
                Box::pin(async move {
                    solver::lcp_jacobi_compute(device, &a, &b, x0.as_ref(), opts, workgroups).await
                })
            },
        )
    }

    /// A test problem with a known answer: `kind` "poisson1d" (order n), "poisson2d" (an n x n
    /// grid), "spd" (random SPD), "jacobi" (seed 003's system with `alpha`), "lcp". Returns
    /// `{n, a, b, x}` with a and b as Float32Array and the known solution x as Float64Array.
    #[wasm_bindgen(unchecked_return_type = "Problem")]
    pub fn problem(kind: &str, n: f64, seed: f64, alpha: Option<f64>) -> Result<Object, JsValue> {
        let n = dimension("n", n)?;
        if n == 0 || n > 4096 {
            return Err(Error::Shape(format!("n must be from 1 to 4096, got {n}")).into());
        }
        let seed = seed as u32;
        let p = match kind {
            "poisson1d" => problems::poisson_1d(n),
            "poisson2d" if n <= 64 => problems::poisson_2d(n),
            "poisson2d" => {
                return Err(Error::Shape(format!(
                    "a 2D Poisson grid of {n}x{n} is too large for a dense matrix (at most 64x64)"
                ))
                .into())
            }
            "spd" => problems::random_spd(n, seed),
            "jacobi" => problems::jacobi_system(n, alpha.unwrap_or(1.2), seed),
            "lcp" => problems::lcp(n, seed),
            other => {
                return Err(Error::Shape(format!(
                    "unknown problem \"{other}\": use poisson1d, poisson2d, spd, jacobi or lcp"
                ))
                .into())
            }
        };
        Ok(object(&[
            ("n", p.n.into()),
            ("a", Float32Array::from(p.a.as_slice()).into()),
            ("b", Float32Array::from(p.b.as_slice()).into()),
            ("x", js_sys::Float64Array::from(p.x.as_slice()).into()),
        ]))
    }

    /// Live textures (held by matrices) and pooled ones (kept for reuse), counts and bytes, and
    /// the peak: the most bytes (live plus pooled) held at once. A matrix costs its padded
    /// texture (16 bytes per texel) and nothing more.
    #[wasm_bindgen(unchecked_return_type = "MemoryStats")]
    pub fn memory(&self) -> Object {
        let m = self.device.memory();
        object(&[
            ("liveTextures", m.live_textures.into()),
            ("liveBytes", m.live_bytes.into()),
            ("pooledTextures", m.pooled_textures.into()),
            ("pooledBytes", m.pooled_bytes.into()),
            ("peakBytes", m.peak_bytes.into()),
        ])
    }

    /// Starts a new peak from the bytes held now (call `releasePooled()` first to start from
    /// the live bytes alone), so that `memory().peakBytes` measures what follows.
    #[wasm_bindgen(js_name = resetPeak)]
    pub fn reset_peak(&self) {
        self.device.reset_peak();
    }

    /// Frees the pooled textures now (they are kept for reuse otherwise).
    #[wasm_bindgen(js_name = releasePooled)]
    pub fn release_pooled(&self) {
        self.device.release_pooled();
    }

    /// Source of the last kernel that ran, in the backend's language (WGSL or GLSL).
    #[wasm_bindgen(js_name = lastShader)]
    pub fn last_shader(&self) -> Option<String> {
        self.device.last_shader()
    }

    /// The collapsing wall of seed 000 (60 cubes, contacts solved as an LCP on this GPU), built
    /// from `seed` (default 1).
    pub fn wall(&self, seed: Option<u32>) -> Wall {
        Wall::new(self.device.clone(), seed.unwrap_or(1))
    }

    /// Resolves once all GPU work submitted so far has finished (for timings).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn finish(&self) -> Promise {
        let device = self.device.clone();
        future_to_promise(async move {
            device.finish().await?;
            Ok(JsValue::UNDEFINED)
        })
    }
}

/// A solver run on a device with its own arguments, following `observe`.
type SolverCall<A> =
    for<'a> fn(&'a dyn Device, A, Observer<'a>) -> device::LocalFuture<'a, Result<Solution, Error>>;

impl Gpgpu {
    /// Runs a solver as a promise: progress goes to `options.onProgress`, `options.signal`
    /// cancels, and the result is `{x, iterations, residuals, converged, passes, readbacks}`.
    fn solve<A: 'static>(
        &self,
        options: JsValue,
        args: Result<A, Error>,
        call: SolverCall<A>,
    ) -> Promise {
        let device = self.device.clone();
        let wrap = self.wrap_fn();
        future_to_promise(async move {
            let args = args?;
            let on_progress = option_value(&options, "onProgress")
                .dyn_into::<js_sys::Function>()
                .ok();
            let signal = option_value(&options, "signal");
            let mut observe = |p: solver::Progress| {
                if let Some(f) = &on_progress {
                    let residual = p.residual.map_or(JsValue::NULL, JsValue::from);
                    let _ = f.call3(&JsValue::NULL, &p.iteration.into(), &p.of.into(), &residual);
                }
                !option_value(&signal, "aborted").as_bool().unwrap_or(false)
            };
            let s = call(device.as_ref(), args, &mut observe).await?;
            Ok(object(&[
                ("x", wrap(s.x).into()),
                ("iterations", s.iterations.into()),
                (
                    "residuals",
                    js_sys::Float64Array::from(s.residuals.as_slice()).into(),
                ),
                ("converged", s.converged.into()),
                ("passes", (s.counts.passes as f64).into()),
                ("readbacks", (s.counts.readbacks as f64).into()),
            ])
            .into())
        })
    }

    /// A function that wraps a matrix of this device as a GpuMatrix later (in a promise).
    fn wrap_fn(&self) -> impl Fn(Matrix) -> GpuMatrix + 'static {
        let device = self.device.clone();
        let registry = self.registry.clone();
        move |m| wrap_matrix(&device, &registry, m)
    }

    /// The GpuMatrix named by `options[key]`, if any.
    fn option_matrix(&self, options: &JsValue, key: &str) -> Result<Option<Matrix>, Error> {
        let v = option_value(options, key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        Ok(Some(self.matrices(&js_sys::Array::of1(&v))?.remove(0)))
    }

    /// The options both LCP solvers share: `x0` and the iteration settings.
    fn lcp_options(
        &self,
        options: &JsValue,
    ) -> Result<(Option<Matrix>, solver::LcpOptions), Error> {
        let defaults = solver::LcpOptions::default();
        let opts = solver::LcpOptions {
            omega: option_number(options, "omega")?.map_or(defaults.omega, |v| v as f32),
            iterations: option_count(options, "iterations")?.unwrap_or(defaults.iterations),
            residual: option_value(options, "residual")
                .as_bool()
                .unwrap_or(defaults.residual),
            progress_every: defaults.progress_every,
        };
        Ok((self.option_matrix(options, "x0")?, opts))
    }

    fn wrap(&self, m: Matrix) -> GpuMatrix {
        wrap_matrix(&self.device, &self.registry, m)
    }
}

/// Makes a GpuMatrix of `m` and records it in `registry`.
fn wrap_matrix(
    device: &Rc<dyn Device>,
    registry: &Rc<RefCell<HashMap<u32, Weak<Slot>>>>,
    m: Matrix,
) -> GpuMatrix {
    let id = NEXT_MATRIX_ID.fetch_add(1, Ordering::Relaxed);
    let (rows, cols) = (m.rows(), m.cols());
    let cell = Rc::new(RefCell::new(Some(m)));
    let mut registry = registry.borrow_mut();
    if registry.len() >= 64 && registry.len().is_power_of_two() {
        registry.retain(|_, w| w.strong_count() > 0);
    }
    registry.insert(id, Rc::downgrade(&cell));
    GpuMatrix {
        device: device.clone(),
        id,
        rows,
        cols,
        matrix: cell,
    }
}

impl Gpgpu {
    /// Runs an element-wise expression of the operation set on `inputs`.
    fn apply(&self, expr: Expr, inputs: &[&GpuMatrix]) -> Result<GpuMatrix, JsValue> {
        let inputs = inputs
            .iter()
            .map(|m| m.matrix())
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Matrix> = inputs.iter().collect();
        matrix_op!(self, self.device.map(&expr, &refs))
    }

    /// The matrices of a JS array of this device's GpuMatrix objects.
    fn matrices(&self, array: &js_sys::Array) -> Result<Vec<Matrix>, Error> {
        let registry = self.registry.borrow();
        array
            .iter()
            .map(|v| {
                let id = Reflect::get(&v, &"id".into())
                    .ok()
                    .and_then(|id| id.as_f64())
                    .ok_or_else(|| Error::Shape("inputs must be an array of GpuMatrix".into()))?;
                let cell = registry
                    .get(&(id as u32))
                    .and_then(Weak::upgrade)
                    .ok_or(Error::ForeignMatrix)?;
                let m = cell.borrow().clone();
                m.ok_or(Error::Freed)
            })
            .collect()
    }
}

static NEXT_MATRIX_ID: AtomicU32 = AtomicU32::new(1);

/// Where a GpuMatrix keeps its matrix: `None` once freed.
type Slot = RefCell<Option<Matrix>>;

/// A matrix whose data stays on the GPU until `read()`.
#[wasm_bindgen]
pub struct GpuMatrix {
    device: Rc<dyn Device>,
    id: u32,
    rows: usize,
    cols: usize,
    matrix: Rc<Slot>,
}

#[wasm_bindgen]
impl GpuMatrix {
    /// Number of rows.
    #[wasm_bindgen(getter)]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[wasm_bindgen(getter)]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// A number that identifies this matrix within its Gpgpu.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Reads the matrix back: a Float32Array of exactly rows * cols values, row-major.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float32Array>")]
    pub fn read(&self) -> Promise {
        let device = self.device.clone();
        let matrix = self.matrix();
        future_to_promise(async move {
            let data = device.read(&matrix?).await?;
            Ok(Float32Array::from(data.as_slice()).into())
        })
    }

    /// `this += b`.
    #[wasm_bindgen(js_name = addAssign)]
    pub fn add_assign(&self, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add(), &[b])
    }

    /// `this *= c` for a number c.
    #[wasm_bindgen(js_name = scaleMut)]
    pub fn scale_mut(&self, c: f32) -> Result<(), JsValue> {
        self.update(ops::scale(c), &[])
    }

    /// `this += b * c` for a number c (seed 000's `mad(b, c)`).
    #[wasm_bindgen(js_name = addScaledMut)]
    pub fn add_scaled_mut(&self, b: &GpuMatrix, c: f32) -> Result<(), JsValue> {
        self.update(ops::add_scaled(c), &[b])
    }

    /// `this += a .* b` (seed 000's `mad(a, b)`).
    #[wasm_bindgen(js_name = addComponentMulMut)]
    pub fn add_component_mul_mut(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add_component_mul(), &[a, b])
    }

    /// Frees the GPU texture now; any later use of this matrix is an error.
    #[wasm_bindgen(js_name = free)]
    pub fn release(&self) {
        self.matrix.borrow_mut().take();
    }
}

impl GpuMatrix {
    fn matrix(&self) -> Result<Matrix, Error> {
        self.matrix.borrow().clone().ok_or(Error::Freed)
    }

    /// `this = expr(this, others...)`, replacing this matrix's texture.
    fn update(&self, expr: Expr, others: &[&GpuMatrix]) -> Result<(), JsValue> {
        let others = others
            .iter()
            .map(|m| m.matrix())
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Matrix> = others.iter().collect();
        let mut this = self.matrix()?;
        self.device.map_mut(&expr, &mut this, &refs)?;
        *self.matrix.borrow_mut() = Some(this);
        Ok(())
    }
}

/// `options[key]`, or undefined when options is not an object.
fn option_value(options: &JsValue, key: &str) -> JsValue {
    if options.is_object() {
        Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// A finite number option, if given.
fn option_number(options: &JsValue, key: &str) -> Result<Option<f64>, Error> {
    let v = option_value(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(Some(x)),
        _ => Err(Error::Shape(format!(
            "option {key} must be a finite number"
        ))),
    }
}

/// A whole-number option from 1 to 10^7, if given.
fn option_count(options: &JsValue, key: &str) -> Result<Option<usize>, Error> {
    match option_number(options, key)? {
        Some(v) if v.fract() == 0.0 && (1.0..=1e7).contains(&v) => Ok(Some(v as usize)),
        Some(v) => Err(Error::Shape(format!(
            "option {key} must be a whole number from 1 to 10000000, got {v}"
        ))),
        None => Ok(None),
    }
}

fn option_bool(options: &JsValue, key: &str) -> bool {
    option_value(options, key).as_bool().unwrap_or(false)
}

/// A plain JS object with the given properties.
fn object(props: &[(&str, JsValue)]) -> Object {
    let obj = Object::new();
    for (k, v) in props {
        let _ = Reflect::set(&obj, &(*k).into(), v);
    }
    obj
}

/// A matrix dimension from JavaScript: a whole number from 0 (refused later as a zero
/// dimension, with its own message) to 2^31.
fn dimension(name: &str, v: f64) -> Result<usize, Error> {
    if v.fract() == 0.0 && (0.0..=2_147_483_648.0).contains(&v) {
        Ok(v as usize)
    } else {
        Err(Error::Shape(format!(
            "{name} must be a whole number, got {v}"
        )))
    }
}

/// The collapsing wall: a [`physics::World`] whose contact LCP is solved on the GPU every
/// frame, drawn with the same backend.
#[wasm_bindgen]
pub struct Wall {
    device: Rc<dyn Device>,
    state: Rc<RefCell<WallState>>,
}

struct WallState {
    world: physics::World,
    camera: physics::Camera,
    /// Bumped by every reset, so that a frame started before it is dropped.
    generation: u64,
    /// The seed the wall was built from.
    seed: u32,
    /// Last frame's LCP and the GPU's impulses, for verification.
    last: Option<(physics::ContactLcp, Vec<[f64; 3]>)>,
    solve_ms: f64,
    frame_ms: f64,
    stepping: bool,
}

/// The thrown ball: radius m, mass kg, speed m/s.
const BALL: (f64, f64, f64) = (0.5, 100.0, 15.0);

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

impl Wall {
    fn new(device: Rc<dyn Device>, seed: u32) -> Self {
        let state = WallState {
            world: Self::world(seed, physics::Settings::default()),
            camera: physics::Camera::default(),
            generation: 0,
            seed,
            last: None,
            solve_ms: 0.0,
            frame_ms: 0.0,
            stepping: false,
        };
        Wall {
            device,
            state: Rc::new(RefCell::new(state)),
        }
    }

    fn world(seed: u32, settings: physics::Settings) -> physics::World {
        let spec = physics::WallSpec {
            seed,
            ..Default::default()
        };
        physics::World::new(physics::wall(&spec), settings)
    }
}

#[wasm_bindgen]
impl Wall {
    /// Simulates one frame (1/60 s): contacts, the LCP solved on the GPU, impulses,
    /// integration. Resolves to `stats()`; rejects while another step runs or if the
    /// simulation fails (it then stays at the last good frame).
    pub fn step(&self) -> Promise {
        let device = self.device.clone();
        let state = self.state.clone();
        future_to_promise(async move {
            let (mut world, generation) = {
                let mut s = state.borrow_mut();
                if s.stepping {
                    return Err(Error::Simulation("a frame is still being simulated".into()).into());
                }
                s.stepping = true;
                (s.world.clone(), s.generation)
            };
            let start = now_ms();
            let result = physics::gpu_frame(device.as_ref(), &mut world, &now_ms).await;
            let mut s = state.borrow_mut();
            s.stepping = false;
            let (lcp, impulses, solve_ms) = result?;
            if s.generation == generation {
                s.world = world;
                s.last = Some((lcp, impulses));
                s.solve_ms = solve_ms;
                s.frame_ms = now_ms() - start;
            }
            drop(s);
            Ok(Self::stats_of(&state.borrow()).into())
        })
    }

    /// Back to a standing wall built from `seed` (default: the same one), keeping the settings.
    pub fn reset(&self, seed: Option<u32>) {
        let mut s = self.state.borrow_mut();
        s.seed = seed.unwrap_or(s.seed);
        s.world = Self::world(s.seed, s.world.settings);
        s.generation += 1;
        s.last = None;
    }

    /// Draws the current frame into `canvas()` (sized by the page) from the orbit camera.
    pub fn draw(&self) -> Result<(), JsValue> {
        let mut s = self.state.borrow_mut();
        let canvas = self.device.scene_canvas()?;
        s.camera.aspect = f64::from(canvas.width().max(1)) / f64::from(canvas.height().max(1));
        let scene = s.camera.scene(&s.world);
        Ok(self.device.draw_scene(&scene)?)
    }

    /// The canvas the wall is drawn into, for the page to place and size.
    pub fn canvas(&self) -> Result<web_sys::HtmlCanvasElement, JsValue> {
        Ok(self.device.scene_canvas()?)
    }

    /// Turns the camera by `yaw` and `pitch` radians and scales its distance by `zoom`.
    pub fn orbit(&self, yaw: f64, pitch: f64, zoom: f64) {
        let mut s = self.state.borrow_mut();
        let c = &mut s.camera;
        c.yaw += yaw;
        c.pitch = (c.pitch + pitch).clamp(0.02, 1.5);
        if zoom.is_finite() && zoom > 0.0 {
            c.distance = (c.distance * zoom).clamp(3.0, 40.0);
        }
    }

    /// Throws the ball (0.5 m, 100 kg, 15 m/s) from the camera through the canvas point
    /// (x, y), both in -1..1 with y up.
    #[wasm_bindgen(js_name = throwBall)]
    pub fn throw_ball(&self, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let (origin, dir) = s.camera.ray(x, y);
        let (radius, mass, speed) = BALL;
        s.world
            .throw_ball(origin + dir * 1.5, dir * speed, radius, mass);
    }

    /// Pushes the cube under the canvas point (x, y) with an impulse of `impulse` N s (default
    /// 60) along the view ray; returns whether a cube was hit.
    pub fn push(&self, x: f64, y: f64, impulse: Option<f64>) -> bool {
        let mut s = self.state.borrow_mut();
        let (origin, dir) = s.camera.ray(x, y);
        s.world.push(origin, dir, impulse.unwrap_or(60.0)).is_some()
    }

    /// Projected Jacobi relaxation, seed convention (negative; the seed uses -0.1).
    #[wasm_bindgen(js_name = setOmega)]
    pub fn set_omega(&self, omega: f64) -> Result<(), JsValue> {
        if !(omega < 0.0 && omega > -2.0) {
            return Err(Error::Simulation(format!(
                "omega must lie in (-2, 0) in the seed's convention x + omega D (Ax + b), got {omega}"
            ))
            .into());
        }
        self.state.borrow_mut().world.settings.omega = omega;
        Ok(())
    }

    /// Iterations per frame; 0 or undefined for 2n (the seed's rule).
    #[wasm_bindgen(js_name = setIterations)]
    pub fn set_iterations(&self, iterations: Option<u32>) {
        self.state.borrow_mut().world.settings.iterations =
            iterations.filter(|&n| n > 0).map(|n| n as usize);
    }

    /// `"dense"` (one (4C) x (4C) matrix) or `"blocks"` (each contact against its neighbours).
    #[wasm_bindgen(js_name = setMode)]
    pub fn set_mode(&self, mode: &str) -> Result<(), JsValue> {
        let mode = match mode {
            "dense" => physics::Mode::Dense,
            "blocks" => physics::Mode::Blocks,
            other => {
                return Err(Error::Simulation(format!(
                    "unknown solve mode \"{other}\": \"dense\" or \"blocks\""
                ))
                .into())
            }
        };
        self.state.borrow_mut().world.settings.mode = mode;
        Ok(())
    }

    /// What the last frame did: `{frame, bodies, contacts, islands, lcpSize, iterations,
    /// solveMs, frameMs, residual, penetration, energy, energyIn, mode}`.
    pub fn stats(&self) -> Object {
        Self::stats_of(&self.state.borrow())
    }

    /// The last frame's LCP and the GPU's answer, for checking in float64: `{contacts, size,
    /// a (dense size x size, row-major), b, x0, x (the GPU's impulses), mu, omega, iterations,
    /// island (per contact)}`; unknowns per contact in the order normal, tangent, tangent.
    /// `null` before the first frame.
    pub fn lcp(&self) -> JsValue {
        let s = self.state.borrow();
        let Some((lcp, x)) = &s.last else {
            return JsValue::NULL;
        };
        let flat = |v: &[[f64; 3]]| {
            js_sys::Float64Array::from(v.iter().flatten().copied().collect::<Vec<_>>().as_slice())
        };
        let island: Vec<u32> = lcp.island.iter().map(|&i| i as u32).collect();
        object(&[
            ("contacts", lcp.contacts.len().into()),
            ("size", lcp.size().into()),
            (
                "a",
                js_sys::Float64Array::from(lcp.dense().as_slice()).into(),
            ),
            ("b", flat(&lcp.b).into()),
            ("x0", flat(&lcp.x0).into()),
            ("x", flat(x).into()),
            ("mu", lcp.mu.into()),
            ("omega", s.world.settings.omega.into()),
            ("iterations", s.world.stats.iterations.into()),
            (
                "island",
                js_sys::Uint32Array::from(island.as_slice()).into(),
            ),
        ])
        .into()
    }
}

impl Wall {
    fn stats_of(s: &WallState) -> Object {
        let w = &s.world;
        let islands = js_sys::Array::new();
        for &size in &w.stats.islands {
            islands.push(&size.into());
        }
        object(&[
            ("frame", (w.stats.frame as f64).into()),
            ("bodies", w.bodies.len().into()),
            ("contacts", w.stats.contacts.into()),
            ("islands", islands.into()),
            ("lcpSize", (3 * w.stats.contacts).into()),
            ("iterations", w.stats.iterations.into()),
            ("solveMs", s.solve_ms.into()),
            ("frameMs", s.frame_ms.into()),
            ("residual", w.stats.residual.into()),
            ("penetration", w.stats.penetration.into()),
            ("energy", w.energy().into()),
            ("energyIn", w.energy_in().into()),
            (
                "mode",
                match w.settings.mode {
                    physics::Mode::Dense => "dense",
                    physics::Mode::Blocks => "blocks",
                }
                .into(),
            ),
            ("omega", w.settings.omega.into()),
        ])
    }
}
