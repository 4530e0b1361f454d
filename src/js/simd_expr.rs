//! The SIMD-optimization paper in JavaScript: `LinearExpr` (an expression `y = A x + b`, its instruction cost,
//! equivalent orders, the abstract program, the generated shader and the optimiser) and
//! `gpu.linear(expr, x)`, `y = A x + b` on the GPU by that shader.

use js_sys::{Float32Array, Float64Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;

use super::gpgpu::Gpgpu;
use super::gpu_matrix::GpuMatrix;
use super::options::{
    dimension, known_options, object, option_bool_or, option_number, seed, whole,
};
use crate::error::Error;
use crate::simd_expr::measures::source_counts;
use crate::simd_expr::{check_permutation, examples, LinearExpr, Schedule};

/// The most annealing moves `optimize` takes (the paper's Fig. 8 runs 15,000 to 30,000).
pub const MAX_MOVES: usize = 1_000_000;
/// The moves `optimize` takes when none are given (the §1.7 examples reach their optima).
pub const DEFAULT_MOVES: usize = 40_000;

/// A linear expression `y = A x + b` (the SIMD-optimization paper) as JavaScript sees it: `LinearExpr` there.
/// Immutable: `permute` returns a new expression.
#[wasm_bindgen(js_name = LinearExpr)]
pub struct LinearExpression {
    inner: LinearExpr,
}

#[wasm_bindgen(js_class = LinearExpr)]
impl LinearExpression {
    /// The expression for an m x m matrix `a` (row-major, m * m finite numbers) and an optional
    /// `b` (m finite numbers), in the order given: the ORIGINAL order, which `gpu.linear` reads
    /// and writes whatever the expression is permuted to. m from 1 to 4096; anything else, a
    /// length that is not m * m (A must be square) or m, or a NaN or infinite entry throws.
    #[wasm_bindgen(js_name = fromDense)]
    pub fn from_dense(
        #[wasm_bindgen(unchecked_param_type = "Float64Array | number[]")] a: &JsValue,
        m: f64,
        #[wasm_bindgen(unchecked_optional_param_type = "Float64Array | number[]")] b: &JsValue,
    ) -> Result<LinearExpression, JsValue> {
        let m = dimension("m", m)?;
        let a = numbers("A", a)?;
        let b = if b.is_undefined() || b.is_null() {
            None
        } else {
            Some(numbers("b", b)?)
        };
        Ok(LinearExpression {
            inner: LinearExpr::from_dense(&a, m, b.as_deref())?,
        })
    }

    /// One of the SIMD-optimization paper's example expressions (`src/simd_expr/examples.rs`), by name:
    /// `"rk-cars"` (the Runge-Kutta five-car system, 20 x 20, with b), `"poisson-2d-s"` (the 2D
    /// S block, 8 x 8), `"poisson-3d-s"` (the 3D S block, 40 x 40), `"wave-s-star"` (the wave
    /// sub-block S*, 32 x 32). Throws for another name.
    pub fn example(name: &str) -> Result<LinearExpression, JsValue> {
        let inner = match name {
            "rk-cars" => examples::runge_kutta_cars(5),
            "poisson-2d-s" => examples::poisson_2d_s(),
            "poisson-3d-s" => examples::poisson_3d_s(),
            "wave-s-star" => examples::wave_s_star(),
            other => {
                return Err(Error::Argument(format!(
                    "no example \"{other}\": the examples are \"rk-cars\", \"poisson-2d-s\", \"poisson-3d-s\" and \"wave-s-star\""
                ))
                .into())
            }
        };
        Ok(LinearExpression { inner })
    }

    /// The size m (A is m x m).
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.inner.size()
    }

    /// `C(E)`: the four-wide instructions that evaluate the expression in its current order
    /// (spec §1.2): `instructions().length`.
    pub fn cost(&self) -> usize {
        self.inner.cost()
    }

    /// `C(E1, E2)` of a Gauss-Seidel iteration for the system `A x = b` in the current order
    /// (spec §1.2, paper §3.3).
    #[wasm_bindgen(js_name = costGaussSeidel)]
    pub fn cost_gauss_seidel(&self) -> usize {
        self.inner.cost_gauss_seidel()
    }

    /// A NEW expression, equivalent to this one (this one is left as it is): `perm[p]` is the
    /// index, in THIS expression's order, of the variable placed at position `p`; rows,
    /// columns and b move alike. Throws unless `perm` (an array or typed array) holds each
    /// whole number 0..m-1 once.
    pub fn permute(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ArrayLike<number>")] perm: &JsValue,
    ) -> Result<LinearExpression, JsValue> {
        let perm = indices(perm, self.inner.size())?;
        Ok(LinearExpression {
            inner: self.inner.permute(&perm)?,
        })
    }

    /// Where each variable came from: entry `p` is the ORIGINAL index (as given to
    /// `fromDense`) of the variable at position `p`; permutations compose.
    #[wasm_bindgen(getter)]
    pub fn permutation(&self) -> Uint32Array {
        to_u32(self.inner.permutation())
    }

    /// A (row-major) in the current order.
    pub fn matrix(&self) -> Float64Array {
        Float64Array::from(self.inner.matrix())
    }

    /// b in the current order, or undefined when the expression has none.
    pub fn b(&self) -> Option<Float64Array> {
        self.inner.b().map(Float64Array::from)
    }

    /// The abstract four-wide program, one line per instruction as in the paper's listings
    /// (`MAD Y0, C1, X0.zzzy, Y0`, `DP4 R3.x, C27, X4`): X j, Y i are quadruples of the
    /// permuted x and y, R k temporaries, C k the constants of `constants()`.
    pub fn instructions(&self) -> Vec<String> {
        let program = self.inner.instructions();
        program.instructions.iter().map(|i| i.to_string()).collect()
    }

    /// The constant registers C k of `instructions()`, four numbers (lanes x, y, z, w) each.
    pub fn constants(&self) -> Float64Array {
        let program = self.inner.instructions();
        Float64Array::from(program.constants.concat().as_slice())
    }

    /// What the kernel `gpu.linear` runs asks for, counted in its source text (measure 2 of
    /// the SIMD-optimization paper, spec §1.8): `{ wgsl: {fma, mul, add, dot, fetches, ops}, glsl: {...} }`, over
    /// all its cases (a fragment runs one case: the rows of one output texel). A GLSL
    /// `a * b + c` counts as one fma. Throws as `shader` does.
    #[wasm_bindgen(unchecked_return_type = "{ wgsl: ShaderCounts; glsl: ShaderCounts }")]
    pub fn counts(&self) -> Result<JsValue, JsValue> {
        let k = self.inner.kernel()?;
        Ok(super::stencil::both_counts(
            source_counts(&k.wgsl),
            source_counts(&k.glsl),
        ))
    }

    /// The complete kernel `gpu.linear` runs, `"wgsl"` (WebGPU) or `"glsl"` (WebGL2): the
    /// program with its coefficients as literals. Throws for another language, or when the
    /// expression is larger than a kernel with baked coefficients takes (m up to 256, at most
    /// 4096 instructions, coefficients within float32's range).
    pub fn shader(
        &self,
        #[wasm_bindgen(unchecked_param_type = "\"wgsl\" | \"glsl\"")] language: &str,
    ) -> Result<String, JsValue> {
        let kernel = self.inner.kernel()?;
        match language {
            "wgsl" => Ok(kernel.wgsl_source()),
            "glsl" => Ok(kernel.glsl_source()),
            other => Err(Error::Argument(format!(
                "the shader language must be \"wgsl\" or \"glsl\", got \"{other}\""
            ))
            .into()),
        }
    }

    /// The kernel `gpu.linear` runs, as `Gpgpu.kernelSources` describes kernels: `{ name,
    /// wgsl, glsl, own: { wgsl, glsl } }`. Throws as `shader` does.
    #[wasm_bindgen(js_name = kernelSources, unchecked_return_type = "KernelSources")]
    pub fn kernel_sources(&self) -> Result<js_sys::Object, JsValue> {
        Ok(super::sources::sources(&self.inner.kernel()?))
    }

    /// The cheapest equivalent order found (spec §1.3, §1.7): the structured candidates
    /// (identity, strides, red-black, slabs), then simulated annealing (the paper's Fig. 4)
    /// restarted 8 times. Options: `seed` (a whole number from 0 to 2^32 - 1, default 1; the
    /// same seed gives the same answer), `moves` (0 to 1,000,000, default 40,000), `history`
    /// (default false). Returns `{ cost, permutation, foundBy }`, and with `history: true` also
    /// `curves`, one `{ from, every, costs }` per restart (the paper's Fig. 8); `permutation` is
    /// relative to THIS expression, ready for `permute`. Throws on a bad option.
    #[wasm_bindgen(unchecked_return_type = "LinearOptimized")]
    pub fn optimize(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "LinearOptimizeOptions")] options: JsValue,
    ) -> Result<Object, JsValue> {
        known_options(&options, "optimize", &["seed", "moves", "history"])?;
        let seed = option_number(&options, "seed")?.map_or(Ok(1), seed)?;
        let moves = match option_number(&options, "moves")? {
            Some(v) => whole(
                "option moves",
                v,
                0.0..=MAX_MOVES as f64,
                " from 0 to 1000000",
            )? as usize,
            None => DEFAULT_MOVES,
        };
        let history = option_bool_or(&options, "history", false)?;
        let found = self
            .inner
            .optimize_for(crate::simd_expr::Objective::Plain, seed, moves);
        let out = object(&[
            ("cost", found.cost.into()),
            ("permutation", to_u32(&found.permutation).into()),
            ("foundBy", found.found_by.into()),
        ]);
        if history {
            let every = Schedule::default().moves_per_step;
            let curves: js_sys::Array = found
                .curves
                .iter()
                .map(|(from, costs)| {
                    object(&[
                        ("from", from.into()),
                        ("every", every.into()),
                        ("costs", to_u32(costs).into()),
                    ])
                })
                .collect();
            js_sys::Reflect::set(&out, &"curves".into(), &curves)?;
        }
        Ok(out)
    }
}

#[wasm_bindgen]
impl Gpgpu {
    /// `y = A x + b` for the expression `expr`, in ONE pass of the kernel generated from its
    /// program, the coefficients baked in (`expr.shader(...)`). `x` is m x c: every column
    /// one vector, in the ORIGINAL order of `LinearExpr.fromDense`; y is m x c, in the original
    /// order too, however `expr` is permuted (the permutation is applied inside the kernel).
    /// Throws unless x has m rows, and as `expr.shader` does.
    pub fn linear(&self, expr: &LinearExpression, x: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        let y = expr.inner.apply_gpu(&self.gpu, &x.matrix()?)?;
        let wrapped = self.wrap(y);
        self.enforce_budget();
        Ok(wrapped)
    }
}

/// The numbers of a Float64Array, a Float32Array or an array (what is not a number there
/// becomes NaN, which `from_dense` refuses by name).
fn numbers(name: &str, v: &JsValue) -> Result<Vec<f64>, Error> {
    if let Some(f) = v.dyn_ref::<Float64Array>() {
        Ok(f.to_vec())
    } else if let Some(f) = v.dyn_ref::<Float32Array>() {
        Ok(f.to_vec().into_iter().map(f64::from).collect())
    } else if js_sys::Array::is_array(v) {
        Ok(Float64Array::new(v).to_vec())
    } else {
        Err(Error::Argument(format!(
            "{name} must be a Float64Array or an array of numbers"
        )))
    }
}

/// A permutation of `0..m` from an array or typed array: whole numbers, each once.
fn indices(v: &JsValue, m: usize) -> Result<Vec<usize>, Error> {
    let not_array = || Error::Argument("a permutation must be an array of indices".into());
    if !(js_sys::Array::is_array(v) || js_sys::ArrayBuffer::is_view(v)) {
        return Err(not_array());
    }
    let values = Float64Array::new(v).to_vec();
    let out = values
        .iter()
        .enumerate()
        .map(|(p, &r)| {
            let said = format!(" from 0 to {}", m.saturating_sub(1));
            whole(&format!("permutation[{p}]"), r, 0.0..=1e9, &said).map(|r| r as usize)
        })
        .collect::<Result<Vec<usize>, Error>>()?;
    check_permutation(&out, m)?;
    Ok(out)
}

fn to_u32(v: &[usize]) -> Uint32Array {
    let v: Vec<u32> = v.iter().map(|&i| i as u32).collect();
    Uint32Array::from(v.as_slice())
}
