//! The thesis's NMF as a promise: `gpu.nmf(F, k, options)`, and the generated parts images.

use js_sys::{Float32Array, Float64Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpgpu::Gpgpu;
use super::gpu_matrix::GpuMatrix;
use super::options::{
    dimension, known_options, object, option_bool_or, option_count, option_number, option_value,
};
use super::solve::observer;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernels::{Expr, Func, Func2};
use crate::matrix::Matrix;
use crate::nmf::{self, NmfOptions, Order, Rule};
use crate::reference::Rng;

#[wasm_bindgen]
impl Gpgpu {
    /// Non-negative matrix factorisation F (m x n) ~ U V^T, U m x k and V n x k non-negative
    /// (the thesis, section 5). Options: `iterations` (default 100), `rule` ("euclidean", the
    /// default, or "divergence"), `order` ("alternating", the default: V first, then U from the
    /// new V; or "simultaneous": both from the old factors, as the thesis's Figure 9 is printed),
    /// `normalize` (columns of U scaled to sum 1 after each iteration, as the thesis does),
    /// `u0`, `v0` (starting factors; default uniform in [0.1, 1) from `seed`, default 1), `eps`
    /// (added to every denominator, default 1e-9), `checkEvery` (iterations between measures
    /// of ||F - U V^T||^2, default 10), `onProgress(iteration, of, error)`, `signal`. Resolves
    /// to `{u, v, errors, checks, iterations, passes, readbacks, msPerIteration}`: `errors[i]`
    /// is ||F - U V^T||_F^2 after `checks[i]` iterations; `msPerIteration` includes the checks.
    /// Negative or non-finite entries in F, u0 or v0, k outside 1..=min(m, n) and wrong shapes
    /// reject with a clear Error.
    #[wasm_bindgen(unchecked_return_type = "Promise<NmfResult>")]
    pub fn nmf(
        &self,
        f: &GpuMatrix,
        k: f64,
        #[wasm_bindgen(unchecked_optional_param_type = "NmfOptions")] options: JsValue,
    ) -> Promise {
        let gpu = self.gpu.clone();
        let wrap = self.wrap_fn();
        let args = (|| {
            known_options(
                &options,
                "nmf",
                &[
                    "iterations",
                    "rule",
                    "order",
                    "normalize",
                    "u0",
                    "v0",
                    "eps",
                    "seed",
                    "checkEvery",
                    "onProgress",
                    "signal",
                ],
            )?;
            let (f, k) = (f.matrix()?, dimension("k", k)?);
            // Before the starting factors are made: a huge k would make them for ever.
            nmf::check_rank(f.rows(), f.cols(), k)?;
            let starts = (
                self.option_matrix(&options, "u0")?,
                self.option_matrix(&options, "v0")?,
            );
            let seed = option_count(&options, "seed")?.unwrap_or(1) as u32;
            Ok::<_, Error>((f, k, starts, seed, nmf_options(&options)?))
        })();
        future_to_promise(async move {
            let (f, k, (u0, v0), seed, opts) = args?;
            let mut observe = observer(&options)?;
            let gpu = gpu.as_ref();
            let mut rng = Rng::new(seed);
            let mut start = |given: Option<Matrix>, rows: usize| match given {
                Some(m) => Ok(m),
                None => gpu.upload(&rng.matrix(rows * k, 0.1, 1.0), rows, k),
            };
            let (u0, v0) = (start(u0, f.rows())?, start(v0, f.cols())?);
            for (name, m) in [("F", &f), ("u0", &u0), ("v0", &v0)] {
                check_non_negative(gpu, name, m).await?;
            }
            let t0 = js_sys::Date::now();
            let r = nmf::factorize(gpu, &f, (&u0, &v0), opts, &mut observe).await?;
            let ms = (js_sys::Date::now() - t0) / r.iterations.max(1) as f64;
            let (checks, errors): (Vec<f64>, Vec<f64>) =
                r.errors.iter().map(|&(i, e)| (i as f64, e)).unzip();
            Ok(object(&[
                ("u", wrap(r.u).into()),
                ("v", wrap(r.v).into()),
                ("errors", Float64Array::from(errors.as_slice()).into()),
                ("checks", Float64Array::from(checks.as_slice()).into()),
                ("iterations", r.iterations.into()),
                ("passes", (r.counts.passes as f64).into()),
                ("readbacks", (r.counts.readbacks as f64).into()),
                ("msPerIteration", ms.into()),
            ])
            .into())
        })
    }

    /// `count` generated 19 x 19 parts images from `seed` (default 1) as F, pixels x images
    /// (361 x count, row-major, values in [0, 1]): the data of the page's NMF, in the thesis's
    /// shape at count = 1024.
    #[wasm_bindgen(js_name = partsImages)]
    pub fn parts_images(
        count: f64,
        seed: Option<f64>,
    ) -> std::result::Result<Float32Array, JsValue> {
        let seed = super::options::seed(seed.unwrap_or(1.0))?;
        let count = dimension("count", count)?;
        if !(1..=nmf::MAX_IMAGES).contains(&count) {
            return Err(Error::Argument(format!(
                "count must be from 1 to {}, got {count}",
                nmf::MAX_IMAGES
            ))
            .into());
        }
        Ok(Float32Array::from(
            nmf::parts_images(count, seed).as_slice(),
        ))
    }
}

/// The NMF settings in `options`, or a clear error.
fn nmf_options(options: &JsValue) -> Result<NmfOptions> {
    let defaults = NmfOptions::default();
    let text = |key: &str| option_value(options, key).as_string();
    let rule = match text("rule").as_deref() {
        None | Some("euclidean") => Rule::Euclidean,
        Some("divergence") => Rule::Divergence,
        Some(other) => {
            return Err(Error::Argument(format!(
                "unknown rule \"{other}\": \"euclidean\" or \"divergence\""
            )))
        }
    };
    let order = match text("order").as_deref() {
        None | Some("alternating") => Order::Alternating,
        Some("simultaneous") => Order::Simultaneous,
        Some(other) => {
            return Err(Error::Argument(format!(
                "unknown order \"{other}\": \"alternating\" or \"simultaneous\""
            )))
        }
    };
    Ok(NmfOptions {
        iterations: option_count(options, "iterations")?.unwrap_or(defaults.iterations),
        rule,
        order,
        normalize: option_bool_or(options, "normalize", false)?,
        eps: option_number(options, "eps")?.map_or(defaults.eps, |e| e as f32),
        check_every: option_count(options, "checkEvery")?.unwrap_or(defaults.check_every),
    })
}

/// Rejects a matrix with a negative or non-finite entry: the largest |x| must be finite and
/// the sum of |x| - x zero (two reductions).
async fn check_non_negative(gpu: &Gpu, name: &str, m: &Matrix) -> Result<()> {
    let largest = gpu.max_abs(m).await?;
    let a = Expr::Input(0);
    let excess = Expr::call2(Func2::Sub, Expr::call(Func::Abs, a.clone()), a);
    let negative = gpu.sum_all(&gpu.map(&excess, &[m])?).await?;
    if !largest.is_finite() || negative != 0.0 {
        return Err(Error::Argument(format!(
            "NMF needs {name} non-negative and finite: it has {}",
            if largest.is_finite() {
                "a negative entry"
            } else {
                "an infinite or NaN entry"
            }
        )));
    }
    Ok(())
}
