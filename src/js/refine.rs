//! `gpu.refine(a, b, options)`: iterative refinement ([`crate::solver::refine`]) for
//! float-float A and b from `uploadFloat64`: float-float residuals, float32 corrections by CG
//! or Jacobi, a float-float solution.

use js_sys::{Float64Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpgpu::Gpgpu;
use super::gpu_matrix::GpuMatrix;
use super::options::{known_options, option_count, option_tolerance, option_value};
use super::solve::observer;
use crate::error::Error;
use crate::solver::{self, InnerSolver, RefineOptions, Refinement};

#[wasm_bindgen]
impl Gpgpu {
    /// Iterative refinement for float-float A and b (both from `uploadFloat64`): from x = 0,
    /// r = b - A x in float-float, then A d = r solved in float32 (A's and r's high halves) and
    /// x += d in float-float, until |r| / |b| <= tol. Options: `solver` ("cg", the default, or
    /// "jacobi"), `tol` (default 1e-10), `innerTol` (each float32 solve's relative tolerance,
    /// default 1e-4), `maxOuter` (default 20), `maxInner` (inner iterations per outer step,
    /// default 1000), `onProgress(outer, maxOuter, residual)` (residual null during an inner
    /// solve), `signal`. Resolves to the solvers' result (`x` float-float, `iterations` the
    /// outer steps, `residuals` the float-float relative residuals from x = 0 on) plus `outer`,
    /// `inner` (inner iterations in all) and `innerPerOuter`.
    #[wasm_bindgen(unchecked_return_type = "Promise<RefineResult>")]
    pub fn refine(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "RefineOptions")] options: JsValue,
    ) -> Promise {
        let args = (|| {
            if !(a.float_float() && b.float_float()) {
                return Err(Error::Argument(
                    "refine takes float-float A and b (upload both with uploadFloat64): it \
                     measures the residual in float-float and solves the corrections in float32; \
                     for float32 A and b use cg or jacobi"
                        .into(),
                ));
            }
            Ok((a.pair()?, b.pair()?, refine_options(&options)?))
        })();
        let gpu = self.gpu.clone();
        let wrap = self.wrap_float_float_fn();
        future_to_promise(async move {
            let (a, b, opts) = args?;
            let mut observe = observer(&options)?;
            let s = solver::refine(&gpu, &a, &b, opts, &mut observe).await?;
            Ok(result(wrap(s.x.clone()).into(), &s).into())
        })
    }
}

/// `refine`'s options, defaults from [`RefineOptions::default`].
fn refine_options(options: &JsValue) -> Result<RefineOptions, Error> {
    known_options(
        options,
        "refine",
        &[
            "solver",
            "tol",
            "innerTol",
            "maxOuter",
            "maxInner",
            "onProgress",
            "signal",
        ],
    )?;
    let d = RefineOptions::default();
    let name = option_value(options, "solver");
    let solver = if name.is_undefined() || name.is_null() {
        d.solver
    } else {
        let name = name
            .as_string()
            .ok_or_else(|| Error::Argument("option solver must be \"cg\" or \"jacobi\"".into()))?;
        InnerSolver::parse(&name)?
    };
    Ok(RefineOptions {
        solver,
        tol: option_tolerance(options, "tol")?.unwrap_or(d.tol),
        inner_tol: option_tolerance(options, "innerTol")?.unwrap_or(d.inner_tol),
        max_outer: option_count(options, "maxOuter")?.unwrap_or(d.max_outer),
        max_inner: option_count(options, "maxInner")?.unwrap_or(d.max_inner),
    })
}

/// `{x, iterations, residuals, converged, passes, readbacks, outer, inner, innerPerOuter}`.
fn result(x: JsValue, s: &Refinement) -> Object {
    let per_outer: Vec<f64> = s.inner_per_outer.iter().map(|&k| k as f64).collect();
    let obj = Object::new();
    for (k, v) in [
        ("x", x),
        ("iterations", s.outer.into()),
        (
            "residuals",
            Float64Array::from(s.residuals.as_slice()).into(),
        ),
        ("converged", s.converged.into()),
        ("passes", (s.counts.passes as f64).into()),
        ("readbacks", (s.counts.readbacks as f64).into()),
        ("outer", s.outer.into()),
        ("inner", s.inner.into()),
        (
            "innerPerOuter",
            Float64Array::from(per_outer.as_slice()).into(),
        ),
    ] {
        let _ = Reflect::set(&obj, &k.into(), &v);
    }
    obj
}
