//! `Gpgpu`: a GPU for linear algebra as JavaScript sees it. Opening, capabilities, upload, the
//! operation library and memory; the solvers are in `solve.rs`, the wall in `wall.rs`.

use std::rc::Rc;

use js_sys::{Float32Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpu_matrix::{matrix_of, wrap_matrix, wrap_values, GpuMatrix, Registry};
use super::options::{dimension, factor, known_options, object, option_value};
use super::wall::Wall;
use crate::error::Error;
use crate::gpu::residency::Budget;
use crate::gpu::{ops, Choice, Format, Gpu, Precision};
use crate::kernels::{self, Expr};
use crate::matrix::Matrix;

/// A GPU for linear algebra, on WebGPU or WebGL2.
#[wasm_bindgen]
pub struct Gpgpu {
    pub(super) gpu: Rc<Gpu>,
    pub(super) reason: String,
    /// This GPU's matrices by id, so that arrays of matrices can be passed from JS.
    pub(super) registry: Registry,
    /// The memory budget, if one was asked for.
    pub(super) budget: Option<Rc<Budget>>,
    /// What the precision probe found at create.
    pub(super) precision: Precision,
    /// Whether matrices keep a copy of what is uploaded and read back, to come back after a
    /// lost GPU (option `keepCopies`, default true).
    pub(super) keep_copies: super::copies::Keep,
}

/// Wraps a device call whose result is a matrix: `Ok(GpuMatrix)` or a thrown `Error`.
macro_rules! matrix_op {
    ($self:ident, $call:expr) => {{
        let m = $call?;
        let wrapped = $self.wrap(m);
        $self.enforce_budget();
        Ok(wrapped)
    }};
}
impl Gpgpu {
    /// The device or context underneath, when `kind` runs.
    fn native(&self, kind: crate::backend::BackendKind) -> Result<JsValue, JsValue> {
        let runs = self.gpu.capabilities().backend;
        if runs != kind {
            return Err(Error::Unsupported(format!(
                "this Gpgpu runs {}, so it has no {} to give",
                runs.name(),
                match kind {
                    crate::backend::BackendKind::WebGpu => "GPUDevice",
                    crate::backend::BackendKind::WebGl2 => "WebGL2 context",
                }
            ))
            .into());
        }
        Ok(self.gpu.device_handle()?)
    }
}

#[wasm_bindgen]
impl Gpgpu {
    /// Opens a GPU: `"auto"` (the default) tries WebGPU, then WebGL2; `"webgpu"` or `"webgl2"`
    /// forces one. Rejects with a message naming what is missing when nothing works. Option
    /// `memoryBudget` (bytes of textures): past it, pooled textures are freed, then the least
    /// recently used matrices move to CPU copies and come back on their next use. Option
    /// `keepCopies` (default true): every matrix keeps the array it was uploaded from or last
    /// read into (unchanged by the page) as its copy, so that it comes back after the GPU is
    /// lost; "copy" keeps private copies; false none. Option
    /// `tileLimit` (texels, a multiple of 4): use textures no larger than that a side, as if the
    /// device allowed no more, so that matrices past `4 x tileLimit` rows or `tileLimit` columns
    /// become grids of tiles (for tests and lessons; every matrix past the device's own limit
    /// is one anyway). Option `canvas` (an `HTMLCanvasElement` or `OffscreenCanvas`, such as one
    /// a page moved to a Worker with `transferControlToOffscreen()`): the wall draws into it
    /// instead of a canvas of texla's own; on WebGL2 texla computes in that canvas's context
    /// too, so it must have no context of another kind. Option `gpu` (a `GPU` object: npm
    /// `webgpu`'s `create([])` in Node) or `device` (a `GPUDevice` the page owns, shared: texla
    /// computes on it and never destroys it) opens WebGPU from there instead of `navigator.gpu`.
    /// Option `cpuProducts` (true on a software adapter, else false): float32 uploads are held
    /// on the CPU and `matmul` multiplies them there (`capabilities().matmulKernel` "cpu").
    pub async fn create(
        #[wasm_bindgen(unchecked_optional_param_type = "\"auto\" | \"webgpu\" | \"webgl2\"")]
        backend: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "CreateOptions")] options: JsValue,
    ) -> Result<Gpgpu, JsValue> {
        console_error_panic_hook::set_once();
        let choice: Choice = backend.as_deref().unwrap_or("auto").parse()?;
        known_options(
            &options,
            "Gpgpu.create",
            &[
                "memoryBudget",
                "keepCopies",
                "tileLimit",
                "canvas",
                "gpu",
                "device",
                "cpuProducts",
            ],
        )?;
        let (choice, source) = super::options::gpu_source(&options, choice)?;
        let budget = match super::options::option_number(&options, "memoryBudget")? {
            Some(bytes) if bytes >= 1.0 => Some(Rc::new(Budget::new(bytes as usize))),
            Some(bytes) => {
                return Err(Error::Argument(format!(
                    "memoryBudget must be a number of bytes, at least 1, got {bytes}"
                ))
                .into())
            }
            None => None,
        };
        let keep_copies = super::copies::Keep::option(&options)?;
        let tile_limit = super::options::option_count(&options, "tileLimit")?;
        let canvas = Some(super::options::option_value(&options, "canvas"))
            .filter(|c| !c.is_undefined() && !c.is_null())
            .map(|c| crate::global::Canvas::from_js(c, "option canvas"))
            .transpose()?;
        let opened = Gpu::open_on(choice, source, canvas).await?;
        if let Some(side) = tile_limit {
            opened.gpu.set_tile_limit(side)?;
        }
        let software = opened.gpu.capabilities().software;
        opened.gpu.set_cpu_products(super::options::option_bool_or(
            &options,
            "cpuProducts",
            software,
        )?);
        let precision = opened.gpu.probe_precision().await?;
        // The probe leaves nothing behind: its textures go, and the peak starts here.
        opened.gpu.release_pooled();
        opened.gpu.reset_peak();
        Ok(Gpgpu {
            gpu: Rc::new(opened.gpu),
            reason: opened.reason,
            registry: Rc::default(),
            budget,
            precision,
            keep_copies,
        })
    }

    /// The `GPUDevice` texla computes on (WebGPU): the device of `GpuMatrix.texture()`'s
    /// textures, the page's own where it gave one (`Gpgpu.create("webgpu", { device })`).
    #[wasm_bindgen(unchecked_return_type = "any")]
    pub fn device(&self) -> Result<JsValue, JsValue> {
        self.native(crate::backend::BackendKind::WebGpu)
    }

    /// The `WebGL2RenderingContext` texla computes on (WebGL2): the context of
    /// `GpuMatrix.texture()`'s textures. A page drawing with it leaves what it changes of the
    /// context's state as it found it (blending, scissor, depth and stencil tests off, the
    /// default pixel-store settings); texla binds its own program, framebuffer, textures,
    /// vertex array and viewport for each pass.
    #[wasm_bindgen(js_name = glContext, unchecked_return_type = "WebGL2RenderingContext")]
    pub fn gl_context(&self) -> Result<JsValue, JsValue> {
        self.native(crate::backend::BackendKind::WebGl2)
    }

    /// The backend that runs: "webgpu" or "webgl2".
    #[wasm_bindgen(getter, unchecked_return_type = "\"webgpu\" | \"webgl2\"")]
    pub fn backend(&self) -> String {
        self.gpu.capabilities().backend.name().into()
    }

    /// Backend, adapter, maximum texture size, why this backend was chosen, and which kernel
    /// `matmul`, `square` and `mulVec` run here and why.
    #[wasm_bindgen(unchecked_return_type = "Capabilities")]
    pub fn capabilities(&self) -> Object {
        let caps = self.gpu.capabilities();
        let (kernel, why) = self.gpu.matmul_kernel();
        object(&[
            ("backend", self.backend().into()),
            ("adapter", caps.adapter.clone().into()),
            ("maxTextureSize", caps.max_texture_size.into()),
            ("tileLimit", self.gpu.tile_limit().into()),
            ("reason", self.reason.clone().into()),
            ("matmulKernel", kernel.name().into()),
            ("matmulReason", why.into()),
            (
                "float32",
                object(&[
                    ("ieee", self.precision.ieee().into()),
                    ("checks", self.precision.checks.into()),
                    (
                        "failed",
                        self.precision
                            .failed
                            .iter()
                            .map(JsValue::from)
                            .collect::<js_sys::Array>()
                            .into(),
                    ),
                ])
                .into(),
            ),
        ])
    }

    /// Uploads `rows x cols` row-major values (a Float32Array, or an array of numbers).
    /// Option `dtype`: `"float32"` (the default) or `"float16"`, which stores each value
    /// rounded to the nearest float16 in half the memory (a value beyond ±65504 rejects); every
    /// operation reads such a matrix as float32 and computes in float32, and memory-bound ones
    /// (`mulVec`, element-wise) read half the bytes.
    pub fn upload(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float32Array | number[]")] data: &JsValue,
        rows: f64,
        cols: f64,
        #[wasm_bindgen(unchecked_optional_param_type = "UploadOptions")] options: JsValue,
    ) -> Result<GpuMatrix, JsValue> {
        let (rows, cols) = (dimension("rows", rows)?, dimension("cols", cols)?);
        known_options(&options, "upload", &["dtype"])?;
        let dtype = option_value(&options, "dtype");
        let format = match dtype.as_string().as_deref() {
            _ if dtype.is_undefined() => Format::F32,
            Some("float32") => Format::F32,
            Some("float16") => Format::F16,
            _ => {
                return Err(Error::Argument(
                    "option dtype must be \"float32\" or \"float16\"".into(),
                )
                .into())
            }
        };
        let converted;
        let data = match data.dyn_ref::<Float32Array>() {
            Some(f) => f,
            None if js_sys::Array::is_array(data) => {
                converted = Float32Array::new(data);
                &converted
            }
            None => {
                return Err(Error::Argument(
                    "data must be a Float32Array or an array of numbers".into(),
                )
                .into())
            }
        };
        if self.holds_uploads(format) {
            self.gpu
                .check_upload(data.length() as usize, (rows, cols))?;
            return Ok(self.wrap_values(data.to_vec(), (rows, cols)));
        }
        // A float16 matrix keeps the page's values as its copy too: an upload after a lost GPU
        // rounds them again, the same way.
        let m: Result<GpuMatrix, JsValue> =
            matrix_op!(self, self.gpu.upload_js_as(data, (rows, cols), format));
        let m = m?;
        m.back_up(data);
        Ok(m)
    }

    /// A copy of `a`.
    pub fn copy(&self, a: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::copy(), &[a])
    }

    /// `a + b` (float-float for two float-float matrices).
    pub fn add(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        if let Some((a, b)) = self.float_float_operands("add", a, b)? {
            return self.float_float_result(self.gpu.float_float().add(&a, &b));
        }
        self.apply(ops::add(), &[a, b])
    }

    /// `a - b` (float-float for two float-float matrices).
    pub fn sub(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        if let Some((a, b)) = self.float_float_operands("sub", a, b)? {
            return self.float_float_result(self.gpu.float_float().sub(&a, &b));
        }
        self.apply(ops::sub(), &[a, b])
    }

    /// `a .* b`, element by element.
    #[wasm_bindgen(js_name = componentMul)]
    pub fn component_mul(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::component_mul(), &[a, b])
    }

    /// `a * c` for a number c (for a float-float `a`, c keeps its float64 value, as hi + lo).
    pub fn scale(&self, a: &GpuMatrix, c: f64) -> Result<GpuMatrix, JsValue> {
        if a.float_float() {
            super::options::finite(&[("the factor c", c)])?;
            return self.float_float_result(self.gpu.float_float().scale(&a.pair()?, c));
        }
        self.apply(ops::scale(factor(c as f32)?), &[a])
    }

    /// `max(a, c)` element by element.
    #[wasm_bindgen(js_name = maxScalar)]
    pub fn max_scalar(&self, a: &GpuMatrix, c: f32) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::max_scalar(factor(c)?), &[a])
    }

    /// `a + b * c` for a number c.
    #[wasm_bindgen(js_name = addScaled)]
    pub fn add_scaled(&self, a: &GpuMatrix, b: &GpuMatrix, c: f32) -> Result<GpuMatrix, JsValue> {
        self.apply(ops::add_scaled(factor(c)?), &[a, b])
    }

    /// `a + (b + c) .* d`, the ShaderX2 article's madad.
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
        #[wasm_bindgen(unchecked_param_type = "GpuMatrix[]")] inputs: &JsValue,
    ) -> Result<GpuMatrix, JsValue> {
        let expr = Expr::parse(expr)?;
        let inputs = self.matrices(inputs)?;
        let refs: Vec<&Matrix> = inputs.iter().collect();
        matrix_op!(self, self.gpu.map(&expr, &refs))
    }

    /// The expression as JavaScript float64 over variables a..f (`Math.*`): the page's reference.
    #[wasm_bindgen(js_name = expressionAsJavaScript)]
    pub fn expression_as_javascript(expr: &str) -> Result<String, JsValue> {
        Ok(Expr::parse(expr)?.javascript())
    }

    /// The same reference as a postfix program (`Expr::program`), for an interpreter that needs
    /// no `eval`: see `www/reference/expression.js`.
    #[wasm_bindgen(js_name = expressionProgram)]
    pub fn expression_program(expr: &str) -> Result<Vec<String>, JsValue> {
        Ok(Expr::parse(expr)?.program())
    }

    /// `[sin(a), cos(a)]`: both in ONE pass (two render targets), as VML's sincos.
    #[wasm_bindgen(unchecked_return_type = "[GpuMatrix, GpuMatrix]")]
    pub fn sincos(&self, a: &GpuMatrix) -> Result<js_sys::Array, JsValue> {
        let a = a.matrix()?;
        let (s, c) = self.gpu.map2(
            &Expr::call(kernels::Func::Sin, Expr::Input(0)),
            &Expr::call(kernels::Func::Cos, Expr::Input(0)),
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
        kernels::function_names()
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
        matrix_op!(self, self.gpu.fill(rows, cols, value))
    }

    /// The `rows x cols` identity (`cols` defaults to `rows`).
    pub fn identity(&self, rows: f64, cols: Option<f64>) -> Result<GpuMatrix, JsValue> {
        let (rows, cols) = (
            dimension("rows", rows)?,
            dimension("cols", cols.unwrap_or(rows))?,
        );
        matrix_op!(self, self.gpu.identity(rows, cols))
    }

    /// `sum a_ij b_ij` (`a^T b` for vectors), reduced on the GPU; only the number is read back.
    /// Two float-float matrices are reduced in float-float (the number keeps about 48 bits).
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn dot(&self, a: &GpuMatrix, b: &GpuMatrix) -> Promise {
        match self.float_float_operands("dot", a, b) {
            Ok(Some((a, b))) => return self.dot_float_float(a, b),
            Ok(None) => {}
            Err(e) => return Promise::reject(&e.into()),
        }
        let (gpu, a, b) = (self.gpu.clone(), a.matrix(), b.matrix());
        future_to_promise(async move { Ok(gpu.dot(&a?, &b?).await?.into()) })
    }

    /// `dot(a, a)`, the squared Euclidean (Frobenius) norm.
    #[wasm_bindgen(js_name = normSquared, unchecked_return_type = "Promise<number>")]
    pub fn norm_squared(&self, a: &GpuMatrix) -> Promise {
        self.dot(a, a)
    }

    /// The sum of all elements, reduced on the GPU.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn sum(&self, a: &GpuMatrix) -> Promise {
        let (gpu, a) = (self.gpu.clone(), a.matrix());
        future_to_promise(async move { Ok(gpu.sum_all(&a?).await?.into()) })
    }

    /// Matrices held and not freed, the scopes open (`scope`) and the matrices made in them so
    /// far; live textures (held by matrices) and pooled ones (kept for reuse), counts and bytes,
    /// and the peak: the most bytes (live plus pooled) held at once. A matrix costs its padded
    /// texture (16 bytes per texel) and nothing more.
    #[wasm_bindgen(unchecked_return_type = "MemoryStats")]
    pub fn memory(&self) -> Object {
        let m = self.gpu.memory();
        let (scopes, scoped) = self.registry.scoped();
        object(&[
            ("liveMatrices", self.registry.live().into()),
            ("scopes", scopes.into()),
            ("scopedMatrices", scoped.into()),
            ("liveTextures", m.live_textures.into()),
            ("liveBytes", m.live_bytes.into()),
            ("pooledTextures", m.pooled_textures.into()),
            ("pooledBytes", m.pooled_bytes.into()),
            ("peakBytes", m.peak_bytes.into()),
            ("spareCopyBytes", super::copies::spare_bytes().into()),
            (
                "budget",
                self.budget
                    .as_ref()
                    .map_or(JsValue::NULL, |b| (b.bytes() as f64).into()),
            ),
            (
                "evictions",
                self.budget
                    .as_ref()
                    .map_or(0.0, |b| b.evictions() as f64)
                    .into(),
            ),
        ])
    }

    /// GPU passes and read-backs since this Gpgpu opened: `{passes, readbacks}` (subtract two
    /// to count what an operation took).
    #[wasm_bindgen(unchecked_return_type = "Counts")]
    pub fn counts(&self) -> Object {
        let c = self.gpu.counts();
        object(&[
            ("passes", (c.passes as f64).into()),
            ("readbacks", (c.readbacks as f64).into()),
        ])
    }

    /// Starts a new peak from the bytes held now (call `releasePooled()` first to start from
    /// the live bytes alone), so that `memory().peakBytes` measures what follows.
    #[wasm_bindgen(js_name = resetPeak)]
    pub fn reset_peak(&self) {
        self.gpu.reset_peak();
    }

    /// Frees the pooled textures, the buffers kept from transfers (large ones, and up to 4 MiB
    /// of small read-backs') and the spare copies of `keepCopies` now (they are kept for reuse
    /// otherwise).
    #[wasm_bindgen(js_name = releasePooled)]
    pub fn release_pooled(&self) {
        self.gpu.release_pooled();
        super::copies::release_spares();
    }

    /// Source of the last kernel that ran, in the backend's language (WGSL or GLSL).
    #[wasm_bindgen(js_name = lastShader)]
    pub fn last_shader(&self) -> Option<String> {
        self.gpu.last_shader()
    }

    /// The collapsing wall of the ShaderX2 article (60 cubes, contacts solved as an LCP on this GPU), built
    /// from `seed` (default 1); `walls` (default 1, at most 1000) such walls one behind the other,
    /// in columns of 100 side by side past 100 (the page offers 1, 10, 100 and 1000).
    pub fn wall(&self, seed: Option<f64>, walls: Option<f64>) -> Result<Wall, JsValue> {
        let walls = super::wall::wall_count(walls.unwrap_or(1.0))?;
        let seed = super::options::seed(seed.unwrap_or(1.0))?;
        Ok(Wall::new(self.gpu.clone(), seed, walls))
    }

    /// Makes the GPU go away now, as a GPU reset or a driver crash would (WebGL2's
    /// `WEBGL_lose_context`, WebGPU's `device.destroy()`): every later operation throws or
    /// rejects with a plain "the GPU went away" error until `restore()`. For tests and lessons.
    #[wasm_bindgen(js_name = loseContext)]
    pub fn lose_context(&self) {
        self.gpu.lose();
    }

    /// Why the GPU went away, if it did (its context or device was lost); `undefined` while it
    /// works.
    pub fn lost(&self) -> Option<String> {
        self.gpu.lost()
    }

    /// Brings this Gpgpu back after its GPU was lost, now (it also comes back by itself on a
    /// later call, except after `loseContext()`): a new WebGL2 context or WebGPU device of the
    /// same kind, pipelines rebuilt as they are used. Every matrix with a copy on the CPU
    /// (uploaded, read back since its last change, `get`/`set`, evicted by the budget) comes
    /// back on its next use; the others reject with "lost with the GPU context". Resolves to
    /// `{ restored, lost }` (counts of matrices; both 0 when the GPU was not lost), or rejects
    /// when no new context or device opens yet (call it again later).
    #[wasm_bindgen(unchecked_return_type = "Promise<{ restored: number; lost: number }>")]
    pub fn restore(&self) -> Promise {
        let (gpu, registry) = (self.gpu.clone(), self.registry.clone());
        future_to_promise(async move {
            gpu.restore().await?;
            let (restored, lost) = registry.restore(gpu.generation());
            Ok(object(&[("restored", restored.into()), ("lost", lost.into())]).into())
        })
    }

    /// Resolves once all GPU work submitted so far has finished (for timings).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn finish(&self) -> Promise {
        let gpu = self.gpu.clone();
        let settle = self.settle_budget();
        future_to_promise(async move {
            gpu.finish().await?;
            settle.await?;
            Ok(JsValue::UNDEFINED)
        })
    }
}

impl Gpgpu {
    /// The device underneath, for Rust callers (tests, tools) that tune its backend.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// A function that wraps a matrix of this device as a GpuMatrix later (in a promise).
    pub(super) fn wrap_fn(&self) -> impl Fn(Matrix) -> GpuMatrix + 'static {
        let gpu = self.gpu.clone();
        let (registry, keep) = (self.registry.clone(), self.keep_copies);
        move |m| wrap_matrix(&gpu, &registry, m, keep)
    }

    /// Whether an upload in `format` holds its values in this program's memory, as the copy
    /// that `keepCopies` asks for, its texture made on its first GPU use: float32 on a software
    /// adapter, where `matmul` multiplies such copies on the CPU ([`Gpu::matmul_kernel`]). The
    /// page's own array could change after the upload; a copy of it cannot.
    fn holds_uploads(&self, format: Format) -> bool {
        self.gpu.cpu_products() && format == Format::F32 && self.keep_copies.any()
    }

    /// Wraps `values`, a `rows x cols` matrix computed on the CPU, then keeps to the budget.
    pub(super) fn wrap_values(&self, values: Vec<f32>, shape: (usize, usize)) -> GpuMatrix {
        let m = wrap_values(&self.gpu, &self.registry, values, shape, self.keep_copies);
        self.enforce_budget();
        m
    }

    pub(super) fn wrap(&self, m: Matrix) -> GpuMatrix {
        wrap_matrix(&self.gpu, &self.registry, m, self.keep_copies)
    }

    /// Wraps a matrix result as a GpuMatrix (or passes its error on), then keeps to the budget.
    pub(super) fn matrix_result(&self, m: Result<Matrix, Error>) -> Result<GpuMatrix, JsValue> {
        matrix_op!(self, m)
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
        matrix_op!(self, self.gpu.map(&expr, &refs))
    }

    /// The matrices of a JS array of this device's GpuMatrix objects. Their ids are read first
    /// and the registry borrowed after: a JavaScript exception while it was borrowed would
    /// leave it borrowed for good (wasm does not unwind), and every later call would trap.
    pub(super) fn matrices(&self, array: &JsValue) -> Result<Vec<Matrix>, Error> {
        let not_matrices = || Error::Argument("inputs must be an array of GpuMatrix".into());
        let array = array.dyn_ref::<js_sys::Array>().ok_or_else(not_matrices)?;
        let ids = array
            .iter()
            .map(|v| {
                Reflect::get(&v, &"id".into())
                    .ok()
                    .and_then(|id| id.as_f64())
                    .ok_or_else(not_matrices)
            })
            .collect::<Result<Vec<f64>, _>>()?;
        ids.iter()
            .map(|&id| {
                let m = self.registry.get(id as u32).ok_or(Error::ForeignMatrix)?;
                matrix_of(&self.gpu, &m)
            })
            .collect()
    }
}
