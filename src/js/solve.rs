//! The solvers as promises: `cg`, `jacobi`, `lcpJacobi` (fragment or compute kernel), and the test
//! problems with known answers. Progress goes to `onProgress`, an `AbortSignal` cancels.

use js_sys::{Float32Array, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpgpu::Gpgpu;
use super::gpu_matrix::GpuMatrix;
use super::options::{
    dimension, known_options, object, option_bool_or, option_count, option_number,
    option_tolerance, option_value,
};
use crate::error::Error;
use crate::gpu::{self, Gpu};
use crate::matrix::Matrix;
use crate::problems;
use crate::solver::{self, Observer, Solution};

#[wasm_bindgen]
impl Gpgpu {
    /// Conjugate gradients for symmetric positive definite A. Options: `x0` (warm start), `tol`
    /// (relative residual, default 1e-6), `maxIter` (default 1000), `fused` (x and r updated in
    /// one two-target pass), `onProgress(iteration, of, residual)`, `signal` (an AbortSignal).
    /// With A and b float-float (and x0, if given), CG runs in float-float and `x` is
    /// float-float.
    #[wasm_bindgen(unchecked_return_type = "Promise<SolveResult>")]
    pub fn cg(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "CgOptions")] options: JsValue,
    ) -> Promise {
        match self.float_float_operands("cg", a, b) {
            Ok(Some((a, b))) => return self.cg_float_float(a, b, options),
            Ok(None) => {}
            Err(e) => return Promise::reject(&e.into()),
        }
        let args = (|| {
            known_options(&options, "cg", CG_OPTIONS)?;
            let (x0, opts) = self.cg_options(&options)?;
            Ok::<_, Error>((a.matrix()?, b.matrix()?, x0, opts))
        })();
        self.solve(options.clone(), args, |gpu, (a, b, x0, opts), observe| {
            Box::pin(async move { solver::cg(gpu, &a, &b, x0.as_ref(), opts, observe).await })
        })
    }

    /// Conjugate gradients for the 2D Poisson matrix of an m x n grid without the matrix: `b`
    /// is the m x n grid of right-hand sides (row-major, the vector of `problem("poisson2d")`),
    /// and the solution `x` comes back as the same grid; A p is the 5-point Laplacian, one pass.
    /// Options as `cg` (`tol`, `maxIter`, `fused`, `x0` of b's shape, `onProgress`, `signal`).
    #[wasm_bindgen(js_name = cgPoisson2d, unchecked_return_type = "Promise<SolveResult>")]
    pub fn cg_poisson_2d(
        &self,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "CgOptions")] options: JsValue,
    ) -> Promise {
        let args = (|| {
            known_options(&options, "cgPoisson2d", CG_OPTIONS)?;
            let (x0, opts) = self.cg_options(&options)?;
            Ok::<_, Error>((b.matrix()?, x0, opts))
        })();
        self.solve(options.clone(), args, |gpu, (b, x0, opts), observe| {
            Box::pin(
                async move { solver::cg_poisson_2d(gpu, &b, x0.as_ref(), opts, observe).await },
            )
        })
    }

    /// Jacobi's method for Ax = b from x = 0. Options: `tol` (default 1e-6), `maxIter` (default
    /// 1000), `checkEvery` (residual read-back interval, default 1), `onProgress`, `signal`.
    #[wasm_bindgen(unchecked_return_type = "Promise<SolveResult>")]
    pub fn jacobi(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "JacobiOptions")] options: JsValue,
    ) -> Promise {
        let defaults = solver::JacobiOptions::default();
        let args = (|| {
            known_options(
                &options,
                "jacobi",
                &["tol", "maxIter", "checkEvery", "onProgress", "signal"],
            )?;
            let opts = solver::JacobiOptions {
                tol: option_tolerance(&options, "tol")?.unwrap_or(defaults.tol),
                max_iter: option_count(&options, "maxIter")?.unwrap_or(defaults.max_iter),
                check_every: option_count(&options, "checkEvery")?.unwrap_or(defaults.check_every),
            };
            Ok::<_, Error>((a.matrix()?, b.matrix()?, opts))
        })();
        self.solve(options.clone(), args, |gpu, (a, b, opts), observe| {
            Box::pin(async move { solver::jacobi(gpu, &a, &b, opts, observe).await })
        })
    }

    /// Projected Jacobi for the LCP x >= 0, Ax + b >= 0, x^T (Ax + b) = 0. Options: `omega`
    /// (negative, the seed's convention; default -0.1), `iterations` (default 100), `x0`,
    /// `residual` (measure max |min(x, Ax + b)| at the end; default true), `onProgress`,
    /// `signal`, and `kernel`: "fragment" (the default: one pass per iteration, any backend) or
    /// "compute" (WebGPU: up to 64 iterations in ONE compute dispatch, a longer run in
    /// dispatches of about 100 ms with `onProgress` and `signal` between them; option
    /// `workgroups`, default 1 on a software adapter, else one per 16 rows, at most 128).
    #[wasm_bindgen(js_name = lcpJacobi, unchecked_return_type = "Promise<SolveResult>")]
    pub fn lcp_jacobi(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "LcpOptions")] options: JsValue,
    ) -> Promise {
        let args = (|| {
            known_options(&options, "lcpJacobi", LCP_OPTIONS)?;
            let compute = match option_value(&options, "kernel") {
                v if v.is_undefined() || v.is_null() => false,
                v if v.as_string().as_deref() == Some("fragment") => false,
                v if v.as_string().as_deref() == Some("compute") => {
                    let names = ["fragment", "compute"];
                    super::products::needs_compute(&self.gpu, "lcpJacobi", "compute", &names)?;
                    true
                }
                v => {
                    return Err(Error::Argument(format!(
                        "lcpJacobi has no kernel {}; its kernels are \"fragment\", \"compute\"",
                        v.as_string()
                            .map_or_else(|| "that is not a string".into(), |k| format!("{k:?}"))
                    )))
                }
            };
            let workgroups = option_count(&options, "workgroups")?;
            if workgroups.is_some() && !compute {
                return Err(Error::Argument(
                    "lcpJacobi's option workgroups belongs to kernel \"compute\", not \"fragment\""
                        .into(),
                ));
            }
            let (x0, opts) = self.lcp_options(&options)?;
            Ok::<_, Error>((
                a.matrix()?,
                b.matrix()?,
                x0,
                opts,
                compute.then_some(workgroups),
            ))
        })();
        self.solve(
            options.clone(),
            args,
            |gpu, (a, b, x0, opts, compute), observe| {
                Box::pin(async move {
                    let x0 = x0.as_ref();
                    match compute {
                        Some(workgroups) => {
                            solver::lcp_jacobi_compute(gpu, &a, &b, x0, opts, workgroups, observe)
                                .await
                        }
                        None => solver::lcp_jacobi(gpu, &a, &b, x0, opts, observe).await,
                    }
                })
            },
        )
    }

    /// A test problem with a known answer: `kind` "poisson1d" (order n), "poisson2d" (an n x n
    /// grid), "spd" (random SPD), "jacobi" (Fujimoto's system with `alpha`), "lcp". Returns
    /// `{n, a, b, x, grid}` with a and b as Float32Array, the known solution x as Float64Array,
    /// and for "poisson2d" the grid's side (else null). A 2D grid past 64 x 64 (up to 1024 x
    /// 1024) comes without its matrix (`a` null: 40,000 unknowns would take 6.4 GB dense), for
    /// `cgPoisson2d`, which applies it as a stencil.
    #[wasm_bindgen(unchecked_return_type = "Problem")]
    pub fn problem(kind: &str, n: f64, seed: f64, alpha: Option<f64>) -> Result<Object, JsValue> {
        let n = dimension("n", n)?;
        let most = if kind == "poisson2d" { 1024 } else { 4096 };
        if n == 0 || n > most {
            return Err(Error::Argument(format!("n must be from 1 to {most}, got {n}")).into());
        }
        let seed = super::options::seed(seed)?;
        let p = match kind {
            "poisson1d" => problems::poisson_1d(n),
            "poisson2d" if n <= 64 => problems::poisson_2d(n),
            "poisson2d" => problems::poisson_2d_grid(n),
            "spd" => problems::random_spd(n, seed),
            "jacobi" => problems::jacobi_system(n, alpha.unwrap_or(1.2), seed),
            "lcp" => problems::lcp(n, seed),
            other => {
                return Err(Error::Argument(format!(
                    "unknown problem \"{other}\": use poisson1d, poisson2d, spd, jacobi or lcp"
                ))
                .into())
            }
        };
        let a = match p.a.is_empty() {
            true => JsValue::NULL,
            false => Float32Array::from(p.a.as_slice()).into(),
        };
        let grid = if kind == "poisson2d" {
            JsValue::from(n)
        } else {
            JsValue::NULL
        };
        Ok(object(&[
            ("n", p.n.into()),
            ("grid", grid),
            ("a", a),
            ("b", Float32Array::from(p.b.as_slice()).into()),
            ("x", js_sys::Float64Array::from(p.x.as_slice()).into()),
        ]))
    }
}

/// The options of `lcpJacobi`.
const LCP_OPTIONS: &[&str] = &[
    "omega",
    "iterations",
    "x0",
    "residual",
    "kernel",
    "workgroups",
    "onProgress",
    "signal",
];

/// The options of `cg` and `cgPoisson2d`.
const CG_OPTIONS: &[&str] = &["x0", "tol", "maxIter", "fused", "onProgress", "signal"];

/// CG's settings: `tol`, `maxIter` and `fused` (float32 and float-float CG alike).
fn cg_settings(options: &JsValue) -> Result<solver::CgOptions, Error> {
    let defaults = solver::CgOptions::default();
    Ok(solver::CgOptions {
        tol: option_tolerance(options, "tol")?.unwrap_or(defaults.tol),
        max_iter: option_count(options, "maxIter")?.unwrap_or(defaults.max_iter),
        fused: option_bool_or(options, "fused", false)?,
    })
}

/// What follows a long run for the page: `options.onProgress(iteration, of, measure)` hears of
/// each progress report, and `options.signal` (an AbortSignal) cancels the run once aborted.
/// Anything else given for either (a string, `true`) is refused rather than ignored.
pub(super) fn observer(options: &JsValue) -> Result<impl FnMut(solver::Progress) -> bool, Error> {
    let given = |v: &JsValue| !(v.is_undefined() || v.is_null());
    let on_progress = option_value(options, "onProgress");
    let on_progress = match on_progress.dyn_into::<js_sys::Function>() {
        Ok(f) => Some(f),
        Err(v) if given(&v) => {
            return Err(Error::Argument(
                "option onProgress must be a function".into(),
            ))
        }
        Err(_) => None,
    };
    let signal = option_value(options, "signal");
    if given(&signal) && option_value(&signal, "aborted").as_bool().is_none() {
        return Err(Error::Argument(
            "option signal must be an AbortSignal".into(),
        ));
    }
    Ok(move |p: solver::Progress| {
        if let Some(f) = &on_progress {
            let measure = p.residual.map_or(JsValue::NULL, JsValue::from);
            let _ = f.call3(&JsValue::NULL, &p.iteration.into(), &p.of.into(), &measure);
        }
        !option_value(&signal, "aborted").as_bool().unwrap_or(false)
    })
}

/// What the solvers resolve to: `{x, iterations, residuals, converged, passes, readbacks}`,
/// with `x` already wrapped for JavaScript.
fn solution_object<X>(x: JsValue, s: &Solution<X>) -> Object {
    object(&[
        ("x", x),
        ("iterations", s.iterations.into()),
        (
            "residuals",
            js_sys::Float64Array::from(s.residuals.as_slice()).into(),
        ),
        ("converged", s.converged.into()),
        ("passes", (s.counts.passes as f64).into()),
        ("readbacks", (s.counts.readbacks as f64).into()),
    ])
}

/// A solver run on a device with its own arguments, following `observe`.
type SolverCall<A> =
    for<'a> fn(&'a Gpu, A, Observer<'a>) -> gpu::LocalFuture<'a, Result<Solution, Error>>;

impl Gpgpu {
    /// Runs a solver as a promise: progress goes to `options.onProgress`, `options.signal`
    /// cancels, and the result is `{x, iterations, residuals, converged, passes, readbacks}`.
    fn solve<A: 'static>(
        &self,
        options: JsValue,
        args: Result<A, Error>,
        call: SolverCall<A>,
    ) -> Promise {
        let gpu = self.gpu.clone();
        let wrap = self.wrap_fn();
        future_to_promise(async move {
            let args = args?;
            let mut observe = observer(&options)?;
            let s = call(gpu.as_ref(), args, &mut observe).await?;
            Ok(solution_object(wrap(s.x.clone()).into(), &s).into())
        })
    }

    /// `cg` in float-float: the same options (`x0` float-float too; `fused` is refused), the
    /// same result with a float-float `x`.
    fn cg_float_float(&self, a: gpu::DdMatrix, b: gpu::DdMatrix, options: JsValue) -> Promise {
        let gpu = self.gpu.clone();
        let wrap = self.wrap_float_float_fn();
        let args = (|| {
            known_options(&options, "cg", CG_OPTIONS)?;
            let opts = cg_settings(&options)?;
            Ok::<_, Error>((self.option_pair(&options, "x0")?, opts))
        })();
        future_to_promise(async move {
            let (x0, opts) = args?;
            let mut observe = observer(&options)?;
            let s = solver::cg_float_float(&gpu, &a, &b, x0.as_ref(), opts, &mut observe).await?;
            Ok(solution_object(wrap(s.x.clone()).into(), &s).into())
        })
    }

    /// CG's options: `x0` (a GpuMatrix, if given) and [`cg_settings`].
    fn cg_options(&self, options: &JsValue) -> Result<(Option<Matrix>, solver::CgOptions), Error> {
        let opts = cg_settings(options)?;
        Ok((self.option_matrix(options, "x0")?, opts))
    }

    /// The GpuMatrix named by `options[key]`, if any.
    pub(super) fn option_matrix(
        &self,
        options: &JsValue,
        key: &str,
    ) -> Result<Option<Matrix>, Error> {
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
}
