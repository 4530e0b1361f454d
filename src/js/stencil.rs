//! The SIMD-optimization paper's stencil solvers in JavaScript: `gpu.poisson(...)`, the enhanced block Jacobi
//! Poisson solver (`PoissonSolver`), and `gpu.wave(...)`, the wave on a height field
//! (`WaveSim`), both with their kernels generated from the paper's abstract programs
//! (`crate::stencil::Ebj`, `crate::stencil::Wave`).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Float32Array, Float64Array, Promise, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpgpu::Gpgpu;
use super::options::{known_options, object, option_count, option_number, option_value, whole};
use crate::error::Error;
use crate::gpu::Gpu;
use crate::kernels::Kernel;
use crate::simd_expr::measures::{source_counts, ShaderCounts};
use crate::stencil::{iterations_to, Ebj, EbjState, Pass, PoissonGrid, Wave, WavePass, WaveState};

/// The most iterations `solve` and `iterate` take in one call.
pub const MAX_ITERATIONS: usize = 100_000;

/// The enhanced block Jacobi solver of one grid in one order, with its kernels built.
#[wasm_bindgen]
pub struct PoissonSolver {
    gpu: Rc<Gpu>,
    ebj: Rc<Ebj>,
    passes: Rc<Vec<Pass>>,
    state: Rc<RefCell<Option<EbjState>>>,
    b: Rc<RefCell<Option<Vec<f64>>>>,
}

/// The wave on the GPU, its eight kernels built.
#[wasm_bindgen]
pub struct WaveSim {
    gpu: Rc<Gpu>,
    wave: Rc<Wave>,
    passes: Rc<Vec<WavePass>>,
    state: Rc<RefCell<WaveState>>,
}

/// A whole-number option in `range`, `default` when not given.
fn option_whole(
    options: &JsValue,
    key: &str,
    default: usize,
    range: (usize, usize),
) -> Result<usize, Error> {
    match option_number(options, key)? {
        None => Ok(default),
        Some(v) => whole(
            &format!("option {key}"),
            v,
            range.0 as f64..=range.1 as f64,
            &format!(" from {} to {}", range.0, range.1),
        )
        .map(|v| v as usize),
    }
}

/// The numbers of a Float64Array, Float32Array or array.
fn values(name: &str, v: &JsValue) -> Result<Vec<f64>, Error> {
    if let Some(f) = v.dyn_ref::<Float64Array>() {
        Ok(f.to_vec())
    } else if let Some(f) = v.dyn_ref::<Float32Array>() {
        Ok(f.to_vec().into_iter().map(f64::from).collect())
    } else if js_sys::Array::is_array(v) || js_sys::ArrayBuffer::is_view(v) {
        Ok(Float64Array::new(v).to_vec())
    } else {
        Err(Error::Argument(format!(
            "{name} must be a Float64Array, a Float32Array, another typed array or an array of \
             numbers"
        )))
    }
}

/// A permutation option: an array of indices.
fn order(v: &JsValue, m: usize) -> Result<Vec<usize>, Error> {
    let p = values("ordering", v)?;
    p.iter()
        .enumerate()
        .map(|(k, &r)| whole(&format!("ordering[{k}]"), r, 0.0..=1e9, "").map(|r| r as usize))
        .collect::<Result<Vec<usize>, Error>>()
        .and_then(|perm| {
            crate::simd_expr::check_permutation(&perm, m)?;
            Ok(perm)
        })
}

/// `{ fma, mul, add, dot, fetches, ops }`.
fn counts_object(c: ShaderCounts) -> JsValue {
    object(&[
        ("fma", c.fma.into()),
        ("mul", c.mul.into()),
        ("add", c.add.into()),
        ("dot", c.dot.into()),
        ("fetches", c.fetches.into()),
        ("ops", c.ops().into()),
    ])
    .into()
}

/// `{ wgsl: counts, glsl: counts }`.
pub(super) fn both_counts(wgsl: ShaderCounts, glsl: ShaderCounts) -> JsValue {
    object(&[("wgsl", counts_object(wgsl)), ("glsl", counts_object(glsl))]).into()
}

/// The sum of the source counts of `kernels` in one language.
fn total(kernels: impl Iterator<Item = ShaderCounts>) -> ShaderCounts {
    kernels.fold(ShaderCounts::default(), |a, c| ShaderCounts {
        fma: a.fma + c.fma,
        mul: a.mul + c.mul,
        add: a.add + c.add,
        dot: a.dot + c.dot,
        fetches: a.fetches + c.fetches,
    })
}

/// The source counts of `kernels` summed, in both languages: `{ wgsl, glsl }`.
fn kernels_counts<'a>(kernels: impl Iterator<Item = &'a Kernel> + Clone) -> JsValue {
    let w = total(kernels.clone().map(|k| source_counts(&k.wgsl)));
    let g = total(kernels.map(|k| source_counts(&k.glsl)));
    both_counts(w, g)
}

/// `kernel`'s complete shader in `language` ("wgsl" or "glsl"), or a clear error.
fn kernel_source(kernel: &Kernel, language: &str) -> Result<String, JsValue> {
    match language {
        "wgsl" => Ok(kernel.wgsl_source()),
        "glsl" => Ok(kernel.glsl_source()),
        other => Err(Error::Argument(format!(
            "language must be \"wgsl\" or \"glsl\", got \"{other}\""
        ))
        .into()),
    }
}

#[wasm_bindgen]
impl Gpgpu {
    /// The enhanced block Jacobi Poisson solver (the SIMD-optimization paper §4.1) of an `nx x ny x nz` grid
    /// (`nz = 1`: the 2D problem; defaults 40 x 80 x 80, the paper's 256,000 unknowns) with its
    /// x-lines in the order `ordering`: `"natural"`, `"optimized"` (the cheapest structured
    /// order of the line block S: stride 10 for 40 cells) or an array (a permutation of
    /// 0..nx-1, e.g. the paper's 2D [4, 7, 0, 3, 1, 5, 6, 2]). Throws for nx not a multiple
    /// of 4 from 4 to 256, ny < 2, more than 2^24 unknowns, a bad permutation, or an order
    /// whose slabs would read more than five others.
    #[wasm_bindgen(unchecked_return_type = "PoissonSolver")]
    pub fn poisson(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "PoissonOptions")] options: JsValue,
    ) -> Result<PoissonSolver, JsValue> {
        known_options(&options, "poisson", &["nx", "ny", "nz", "ordering"])?;
        let nx = option_whole(&options, "nx", 40, (4, crate::stencil::MAX_LINE))?;
        let ny = option_whole(&options, "ny", 80, (2, 1 << 24))?;
        let nz = option_whole(&options, "nz", 80, (1, 1 << 24))?;
        let grid = PoissonGrid::new(nx, ny, nz)?;
        let ordering = option_value(&options, "ordering");
        let ebj = if ordering.is_undefined() || ordering.as_string().as_deref() == Some("natural") {
            Ebj::natural(grid)
        } else if ordering.as_string().as_deref() == Some("optimized") {
            Ebj::optimized(grid)
        } else if let Some(other) = ordering.as_string() {
            return Err(Error::Argument(format!(
                "ordering must be \"natural\", \"optimized\" or a permutation, got \"{other}\""
            ))
            .into());
        } else {
            Ebj::with_order(grid, &order(&ordering, nx)?)?
        };
        let passes = ebj.passes()?;
        Ok(PoissonSolver {
            gpu: self.gpu.clone(),
            ebj: Rc::new(ebj),
            passes: Rc::new(passes),
            state: Rc::new(RefCell::new(None)),
            b: Rc::new(RefCell::new(None)),
        })
    }

    /// The wave of the SIMD-optimization paper §4.2 on a `side x lines` height field (defaults 512 x 512, λ² =
    /// 0.25), its lines cut into blocks of 32 in the order `ordering` (`"natural"` or
    /// `"optimized"`: stride 8, the paper's 38 -> 24), at rest. Throws for a side that is not
    /// a multiple of 32 up to 4096, lines outside 2..4096, λ² outside (0, 0.5], another
    /// ordering, or lines the device's textures cannot hold.
    #[wasm_bindgen(unchecked_return_type = "WaveSim")]
    pub fn wave(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "WaveOptions")] options: JsValue,
    ) -> Result<WaveSim, JsValue> {
        known_options(&options, "wave", &["side", "lines", "lambda2", "ordering"])?;
        let side = option_whole(&options, "side", 512, (1, crate::stencil::MAX_SIDE))?;
        let lines = option_whole(&options, "lines", 512, (1, crate::stencil::MAX_SIDE))?;
        let lambda2 = option_number(&options, "lambda2")?.unwrap_or(0.25);
        let ordering = option_value(&options, "ordering")
            .as_string()
            .unwrap_or_else(|| "natural".into());
        let wave = Wave::new(side, lines, lambda2, &ordering)?;
        let passes = wave.passes()?;
        let zeros = vec![0.0; side * lines];
        let state = wave.upload(&self.gpu, &zeros, &zeros)?;
        Ok(WaveSim {
            gpu: self.gpu.clone(),
            wave: Rc::new(wave),
            passes: Rc::new(passes),
            state: Rc::new(RefCell::new(state)),
        })
    }
}

#[wasm_bindgen]
impl PoissonSolver {
    /// `[nx, ny, nz]`.
    #[wasm_bindgen(getter)]
    pub fn dims(&self) -> Vec<u32> {
        let (nx, ny, nz) = self.ebj.grid.dims();
        vec![nx as u32, ny as u32, nz as u32]
    }

    /// The order's name: "natural", "stride 10", "given", ...
    #[wasm_bindgen(getter)]
    pub fn ordering(&self) -> String {
        self.ebj.name.clone()
    }

    /// The line order: the cell at each position (slab s = positions 4s..4s+3).
    #[wasm_bindgen(getter)]
    pub fn permutation(&self) -> Uint32Array {
        let v: Vec<u32> = self.ebj.perm.iter().map(|&i| i as u32).collect();
        Uint32Array::from(v.as_slice())
    }

    /// The paper's measures of this order: `{ s, product, operations, efficiency }`: the
    /// abstract cost of S and of one elementary blockwise product (S and its T blocks), the
    /// scalar multiplications of that product and their share of the 4 x product lanes.
    #[wasm_bindgen(
        unchecked_return_type = "{ s: number; product: number; operations: number; efficiency: number }"
    )]
    pub fn cost(&self) -> JsValue {
        let (s, product) = self.ebj.cost();
        let (nx, _, nz) = self.ebj.grid.dims();
        let t = if nz == 1 { 2 } else { 4 };
        let ops = self.ebj.line_block().nonzeros().len() + t * nx;
        object(&[
            ("s", s.into()),
            ("product", product.into()),
            ("operations", ops.into()),
            ("efficiency", (ops as f64 / (4 * product) as f64).into()),
        ])
        .into()
    }

    /// The counts of the generated kernels of one iteration, summed over the slabs, read from
    /// their source text: `{ wgsl: {fma, mul, add, dot, fetches, ops}, glsl: {...} }` (a GLSL
    /// `a * b + c` counts as one fma).
    #[wasm_bindgen(unchecked_return_type = "{ wgsl: ShaderCounts; glsl: ShaderCounts }")]
    pub fn counts(&self) -> JsValue {
        kernels_counts(self.passes.iter().map(|p| &p.kernel))
    }

    /// The complete shader of slab `slab`'s pass (`"wgsl"` or `"glsl"`).
    pub fn shader(&self, slab: usize, language: &str) -> Result<String, JsValue> {
        let pass = self.passes.get(slab).ok_or_else(|| {
            Error::Argument(format!(
                "slab {slab} does not exist: 0..{}",
                self.passes.len() - 1
            ))
        })?;
        kernel_source(&pass.kernel, language)
    }

    /// A right-hand side for this grid: the negative divergence of a seeded random velocity
    /// field (natural cell order, index i + nx (j + ny k)).
    pub fn rhs(&self, seed: u32) -> Float64Array {
        Float64Array::from(self.ebj.grid.rhs(seed).as_slice())
    }

    /// Uploads `b` and the first guess (zero unless `x0` is given), both in natural cell
    /// order (the upload a timing "with transfer" includes). Throws for a wrong length, a
    /// value that is not a finite float32, or a grid the device's textures cannot hold.
    #[wasm_bindgen(js_name = setRhs)]
    pub fn set_rhs(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array | number[]")] b: &JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Float64Array")] x0: &JsValue,
    ) -> Result<(), JsValue> {
        let b = values("b", b)?;
        let x0 = if x0.is_undefined() || x0.is_null() {
            None
        } else {
            Some(values("x0", x0)?)
        };
        let state = self.ebj.upload(&self.gpu, &b, x0.as_deref())?;
        *self.state.borrow_mut() = Some(state);
        *self.b.borrow_mut() = Some(b);
        Ok(())
    }

    /// Runs `count` EBJ iterations (one pass per slab each) and resolves when the GPU has
    /// finished them. Rejects before `setRhs`, or for a count outside 1..100000.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn iterate(&self, count: f64) -> Promise {
        let run = || -> Result<(), Error> {
            let count = whole(
                "count",
                count,
                1.0..=MAX_ITERATIONS as f64,
                " from 1 to 100000",
            )?;
            let mut state = self.state.borrow_mut();
            let state = state.as_mut().ok_or_else(no_rhs)?;
            for _ in 0..count as usize {
                self.ebj.sweep_gpu(&self.gpu, &self.passes, state)?;
            }
            Ok(())
        };
        let ran = run();
        let gpu = self.gpu.clone();
        future_to_promise(async move {
            ran?;
            gpu.finish().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Reads x back: a Float64Array in natural cell order.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float64Array>")]
    pub fn solution(&self) -> Promise {
        let (gpu, ebj, state) = (self.gpu.clone(), self.ebj.clone(), self.state.clone());
        future_to_promise(async move {
            let st = state.borrow().clone().ok_or_else(no_rhs)?;
            let x = ebj.read(&gpu, &st).await?;
            Ok(Float64Array::from(x.as_slice()).into())
        })
    }

    /// Iterates from the uploaded first guess until the relative residual `|b - A x| / |b|`
    /// (float64, of x read back) is at most `tol` (default 1e-5), checked every `checkEvery`
    /// iterations (default 1), at most `maxIter` (default 10000). Resolves to `{ iterations,
    /// residual, converged, history }` (history: the residual at every check).
    #[wasm_bindgen(
        unchecked_return_type = "Promise<{ iterations: number; residual: number; converged: boolean; history: Float64Array }>"
    )]
    pub fn solve(
        &self,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ tol?: number; maxIter?: number; checkEvery?: number }"
        )]
        options: JsValue,
    ) -> Promise {
        let (gpu, ebj, passes) = (self.gpu.clone(), self.ebj.clone(), self.passes.clone());
        let (state, b) = (self.state.clone(), self.b.clone());
        future_to_promise(async move {
            known_options(&options, "solve", &["tol", "maxIter", "checkEvery"])?;
            let tol = option_number(&options, "tol")?.unwrap_or(1e-5);
            if tol.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return Err(
                    Error::Argument(format!("option tol must be positive, got {tol}")).into(),
                );
            }
            let max_iter = option_count(&options, "maxIter")?.unwrap_or(10_000);
            let every = option_count(&options, "checkEvery")?.unwrap_or(1);
            let b = b.borrow().clone().ok_or_else(no_rhs)?;
            let (mut done, mut history, mut residual) = (0, Vec::new(), f64::INFINITY);
            while done < max_iter {
                let n = every.min(max_iter - done);
                {
                    let mut st = state.borrow_mut();
                    let st = st.as_mut().ok_or_else(no_rhs)?;
                    for _ in 0..n {
                        ebj.sweep_gpu(&gpu, &passes, st)?;
                    }
                }
                done += n;
                let st = state.borrow().clone().ok_or_else(no_rhs)?;
                let x = ebj.read(&gpu, &st).await?;
                residual = ebj.grid.residual(&x, &b);
                history.push(residual);
                if residual <= tol {
                    break;
                }
            }
            Ok(object(&[
                ("iterations", done.into()),
                ("residual", residual.into()),
                ("converged", (residual <= tol).into()),
                ("history", Float64Array::from(history.as_slice()).into()),
            ])
            .into())
        })
    }

    /// Iterations of the float64 EBJ (the same passes, on the CPU) from zero until the
    /// relative residual is at most each of `tols`, at most `maxIter`: one entry per
    /// tolerance, `null` where not reached (measure 4: independent of the hardware).
    #[wasm_bindgen(js_name = iterationsFloat64, unchecked_return_type = "(number | null)[]")]
    pub fn iterations_float64(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] b: &JsValue,
        #[wasm_bindgen(unchecked_param_type = "number[]")] tols: &JsValue,
        max_iter: f64,
    ) -> Result<js_sys::Array, JsValue> {
        let b = values("b", b)?;
        if b.len() != self.ebj.grid.len() {
            return Err(Error::Argument(format!(
                "b must hold one value per cell, {}, got {}",
                self.ebj.grid.len(),
                b.len()
            ))
            .into());
        }
        let tols = values("tols", tols)?;
        let max_iter = whole(
            "maxIter",
            max_iter,
            1.0..=MAX_ITERATIONS as f64,
            " from 1 to 100000",
        )?;
        let found = iterations_to(&self.ebj.grid, &b, &tols, max_iter as usize, |x| {
            self.ebj.sweep(x, &b)
        });
        Ok(found
            .into_iter()
            .map(|f| f.map_or(JsValue::NULL, |n| n.into()))
            .collect())
    }
}

/// The error of a solver used before `setRhs`.
fn no_rhs() -> Error {
    Error::Argument("call setRhs(b) first: the solver has no right-hand side yet".into())
}

#[wasm_bindgen]
impl WaveSim {
    /// `[side, lines]`.
    #[wasm_bindgen(getter)]
    pub fn dims(&self) -> Vec<u32> {
        let (s, l) = self.wave.dims();
        vec![s as u32, l as u32]
    }

    /// The order of a 32-cell block.
    #[wasm_bindgen(getter)]
    pub fn permutation(&self) -> Uint32Array {
        let v: Vec<u32> = self.wave.permutation().iter().map(|&i| i as u32).collect();
        Uint32Array::from(v.as_slice())
    }

    /// `{ sStar, product }`: the abstract cost of the 32 x 32 block S* in this order and of one
    /// 32 x 32 elementary blockwise product (S*, the two corners, two T*).
    #[wasm_bindgen(unchecked_return_type = "{ sStar: number; product: number }")]
    pub fn cost(&self) -> JsValue {
        let (s, p) = self.wave.cost();
        object(&[("sStar", s.into()), ("product", p.into())]).into()
    }

    /// The source counts of the eight kernels of a step, summed: `{ wgsl, glsl }`.
    #[wasm_bindgen(unchecked_return_type = "{ wgsl: ShaderCounts; glsl: ShaderCounts }")]
    pub fn counts(&self) -> JsValue {
        kernels_counts(self.passes.iter().map(|p| &p.kernel))
    }

    /// The complete shader of quadruple `q`'s kernel (`"wgsl"` or `"glsl"`).
    pub fn shader(&self, q: usize, language: &str) -> Result<String, JsValue> {
        let pass = (self.passes.get(q))
            .ok_or_else(|| Error::Argument(format!("quadruple {q} does not exist: 0..7")))?;
        kernel_source(&pass.kernel, language)
    }

    /// Runs `count` steps (default 1; eight passes each) without waiting for them.
    pub fn step(&self, count: Option<f64>) -> Result<(), JsValue> {
        let count = whole(
            "count",
            count.unwrap_or(1.0),
            1.0..=MAX_ITERATIONS as f64,
            " from 1 to 100000",
        )?;
        let mut state = self.state.borrow_mut();
        for _ in 0..count as usize {
            self.wave.step_gpu(&self.gpu, &self.passes, &mut state)?;
        }
        Ok(())
    }

    /// The heights of the current step, read back: a Float32Array, cell (i, j) at i + side j.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float32Array>")]
    pub fn heights(&self) -> Promise {
        let (gpu, wave, state) = (self.gpu.clone(), self.wave.clone(), self.state.clone());
        future_to_promise(async move {
            let current = state.borrow().current.clone();
            let w = wave.read(&gpu, &current).await?;
            Ok(Float32Array::from(w.as_slice()).into())
        })
    }

    /// Sets both time levels: `previous` (step k - 1) and `current` (step k), natural order.
    /// Throws for a wrong length or a value that is not a finite float32.
    #[wasm_bindgen(js_name = setHeights)]
    pub fn set_heights(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array | Float32Array")] previous: &JsValue,
        #[wasm_bindgen(unchecked_param_type = "Float64Array | Float32Array")] current: &JsValue,
    ) -> Result<(), JsValue> {
        let (p, c) = (values("previous", previous)?, values("current", current)?);
        *self.state.borrow_mut() = self.wave.upload(&self.gpu, &p, &c)?;
        Ok(())
    }

    /// Drops a stone at cell (x, y): adds `amplitude exp(-r² / radius²)` (defaults 1 and 6)
    /// to both time levels (read back, added, uploaded), so it starts at rest. Rejects for a
    /// position outside the field or a radius not positive.
    #[wasm_bindgen(js_name = drop, unchecked_return_type = "Promise<void>")]
    pub fn drop_stone(
        &self,
        x: f64,
        y: f64,
        amplitude: Option<f64>,
        radius: Option<f64>,
    ) -> Promise {
        let (gpu, wave, state) = (self.gpu.clone(), self.wave.clone(), self.state.clone());
        future_to_promise(async move {
            let (side, lines) = wave.dims();
            let (a, r) = (amplitude.unwrap_or(1.0), radius.unwrap_or(6.0));
            let inside = x >= 0.0 && y >= 0.0 && x < side as f64 && y < lines as f64;
            if !inside || r.is_nan() || r <= 0.0 || !a.is_finite() || !r.is_finite() {
                return Err(Error::Argument(format!(
                    "a stone needs a cell inside the {side} x {lines} field, a finite amplitude \
                     and a positive radius, got ({x}, {y}), {a}, {r}"
                ))
                .into());
            }
            let st = state.borrow().clone();
            let stone = wave.stone(x, y, a, r);
            let add = |w: Vec<f32>| -> Vec<f64> {
                w.iter()
                    .zip(&stone)
                    .map(|(h, s)| f64::from(*h) + s)
                    .collect()
            };
            let prev = add(wave.read(&gpu, &st.previous).await?);
            let cur = add(wave.read(&gpu, &st.current).await?);
            *state.borrow_mut() = wave.upload(&gpu, &prev, &cur)?;
            Ok(JsValue::UNDEFINED)
        })
    }
}
