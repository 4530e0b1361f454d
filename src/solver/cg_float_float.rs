//! Conjugate gradients in float-float: the same iteration as [`super::cg`] on
//! [`DdMatrix`] vectors (about 48 bits), with the scalars alpha and beta in float64 on the CPU.
//!
//! Float32 CG stops improving once the rounding of x and r (2^-24 relative) is as large as
//! what is left of the residual: near 1e-4 relative residual on 1D Poisson with n = 512
//! (condition number about 1e5). In float-float the same floor sits near 2^-48 times the
//! condition number, so the residual keeps falling to about 1e-11.

use super::cg::CgOptions;
use super::solution::{breathe, check_finite, check_system, Observer, Progress, Solution};
use crate::error::{Error, Result};
use crate::gpu::{DdMatrix, Gpu};

/// Solves Ax = b in float-float for symmetric positive definite A, warm-started from `x0`
/// (zero if `None`); options and result as [`super::cg`], the solution a [`DdMatrix`].
///
/// Per iteration: s = A p (2 passes), t = p.s and rr = r.r (float-float reductions; the two
/// scalars are the only read-backs, each one float64), x += alpha p, r -= alpha s and
/// p = r + beta p (one pass each, two render targets: hi and lo). `fused` is refused: the fused
/// update reads x, p, r and s, 8 textures in float-float, more than a kernel's 6.
pub async fn cg_float_float(
    gpu: &Gpu,
    a: &DdMatrix,
    b: &DdMatrix,
    x0: Option<&DdMatrix>,
    options: CgOptions,
    observe: Observer<'_>,
) -> Result<Solution<DdMatrix>> {
    let n = check_system(&a.hi, &b.hi, x0.map(|x| &x.hi))?;
    if options.fused {
        return Err(Error::Unsupported(
            "fused CG is float32 only: in float-float the fused update would read x, p, r and s \
             as 8 textures (hi and lo each), more than the 6 a kernel may read; use fused: false"
                .into(),
        ));
    }
    let start = gpu.counts();
    let b_norm = gpu.dot_ff(b, b).await?.sqrt();
    check_finite("CG", 0, b_norm)?;
    let (mut x, mut r) = match x0 {
        Some(x0) => {
            let ax = gpu.mul_vec_ff(a, x0)?;
            (x0.clone(), gpu.sub_ff(b, &ax)?)
        }
        None => (gpu.zeros_ff(n, 1)?, b.clone()),
    };
    let relative = |rr: f64| {
        if b_norm > 0.0 {
            rr.sqrt() / b_norm
        } else {
            rr.sqrt()
        }
    };
    let mut rr = gpu.dot_ff(&r, &r).await?;
    let mut residuals = vec![relative(rr)];
    let mut p = r.clone();
    let mut last_pause = super::solution::now_ms();
    let mut iterations = 0;
    while relative(rr) > options.tol && iterations < options.max_iter {
        let s = gpu.mul_vec_ff(a, &p)?;
        let t = gpu.dot_ff(&p, &s).await?;
        check_finite("CG", iterations + 1, t)?;
        if t <= 0.0 {
            return Err(Error::Solver(format!(
                "CG broke down at iteration {}: p^T A p = {t:e} <= 0, so A is not positive definite",
                iterations + 1
            )));
        }
        // alpha and beta stay float64: split into hi + lo as the kernels' parameters.
        let alpha = rr / t;
        x = gpu.add_scaled_ff(&x, &p, alpha)?;
        r = gpu.add_scaled_ff(&r, &s, -alpha)?;
        let rr_new = gpu.dot_ff(&r, &r).await?;
        iterations += 1;
        check_finite("CG", iterations, rr_new)?;
        p = gpu.add_scaled_ff(&r, &p, rr_new / rr)?;
        rr = rr_new;
        residuals.push(relative(rr));
        let progress = Progress {
            iteration: iterations,
            of: options.max_iter,
            residual: Some(relative(rr)),
        };
        breathe(&mut last_pause).await;
        if !observe(progress) {
            return Err(Error::Cancelled);
        }
    }
    Ok(Solution {
        x,
        iterations,
        converged: relative(rr) <= options.tol,
        residuals,
        counts: gpu.counts() - start,
    })
}
