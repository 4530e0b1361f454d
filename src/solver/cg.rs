//! Conjugate gradients for symmetric positive definite A (seed 000, section 4.1).

use super::solution::{breathe, check_finite, check_system, Observer, Progress, Solution};
use crate::error::{Error, Result};
use crate::gpu::ops;
use crate::gpu::Gpu;
use crate::kernels::{Expr, Func2};
use crate::matrix::Matrix;

/// Settings of [`cg`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CgOptions {
    /// Stop once |b - Ax| <= tol |b|.
    pub tol: f64,
    /// Stop after this many iterations at most.
    pub max_iter: usize,
    /// Update x and r in ONE pass with two render targets (the seed's "macro shader"), instead
    /// of one pass each.
    pub fused: bool,
}

impl Default for CgOptions {
    fn default() -> Self {
        CgOptions {
            tol: 1e-6,
            max_iter: 1000,
            fused: false,
        }
    }
}

/// Solves Ax = b for symmetric positive definite A, warm-started from `x0` (zero if `None`).
///
/// Per iteration: s = A p (2 passes), t = p.s and rr = r.r (reductions; the two scalars are the
/// only read-backs), x += alpha p and r -= alpha s (2 passes, or 1 fused), p = r + beta p.
/// Reports p^T A p <= 0 as "not positive definite" and a NaN or infinite residual as divergence.
pub async fn cg(
    gpu: &Gpu,
    a: &Matrix,
    b: &Matrix,
    x0: Option<&Matrix>,
    options: CgOptions,
    observe: Observer<'_>,
) -> Result<Solution> {
    check_system(a, b, x0)?;
    cg_with(gpu, &|p| gpu.mul_vec(a, p), b, x0, options, observe).await
}

/// [`cg`] for the 2D Poisson matrix of an m x n grid without building it: `b` (and `x0`, and
/// the solution) are the m x n grid of values, and A p is the 5-point Laplacian
/// ([`Gpu::laplacian`], one pass). A dense matrix of 40,000 unknowns would take 6.4 GB; this
/// takes four grids of 160 kB.
pub async fn cg_poisson_2d(
    gpu: &Gpu,
    b: &Matrix,
    x0: Option<&Matrix>,
    options: CgOptions,
    observe: Observer<'_>,
) -> Result<Solution> {
    if let Some(x0) = x0.filter(|x0| x0.layout() != b.layout()) {
        return Err(Error::Shape(format!(
            "x0 must have b's shape ({}x{}), got {}x{}",
            b.rows(),
            b.cols(),
            x0.rows(),
            x0.cols()
        )));
    }
    cg_with(gpu, &|p| gpu.laplacian(p), b, x0, options, observe).await
}

/// CG with A given by what it does: `apply(p) = A p`, of p's shape (b's).
async fn cg_with(
    gpu: &Gpu,
    apply: &dyn Fn(&Matrix) -> Result<Matrix>,
    b: &Matrix,
    x0: Option<&Matrix>,
    options: CgOptions,
    observe: Observer<'_>,
) -> Result<Solution> {
    let start = gpu.counts();
    let b_norm = f64::from(gpu.dot(b, b).await?).sqrt();
    check_finite("CG", 0, b_norm)?;
    let (mut x, mut r) = match x0 {
        Some(x0) => {
            let ax = apply(x0)?;
            (x0.clone(), gpu.map(&ops::sub(), &[b, &ax])?)
        }
        None => (gpu.fill(b.rows(), b.cols(), 0.0)?, b.clone()),
    };
    let relative = |rr: f64| {
        if b_norm > 0.0 {
            rr.sqrt() / b_norm
        } else {
            rr.sqrt()
        }
    };
    let mut rr = f64::from(gpu.dot(&r, &r).await?);
    let mut residuals = vec![relative(rr)];
    let mut p = r.clone();
    let mut last_pause = super::solution::now_ms();
    let mut iterations = 0;
    while relative(rr) > options.tol && iterations < options.max_iter {
        let s = apply(&p)?;
        let t = f64::from(gpu.dot(&p, &s).await?);
        check_finite("CG", iterations + 1, t)?;
        if t <= 0.0 {
            return Err(Error::Solver(format!(
                "CG broke down at iteration {}: p^T A p = {t:e} <= 0, so A is not positive definite",
                iterations + 1
            )));
        }
        let alpha = (rr / t) as f32;
        if options.fused {
            let (x_new, r_new) = gpu.map2(
                &ops::add_scaled(alpha),
                &Expr::call2(
                    Func2::Sub,
                    Expr::Input(2),
                    Expr::call2(Func2::Mul, Expr::Input(3), Expr::Const(alpha)),
                ),
                &[&x, &p, &r, &s],
            )?;
            (x, r) = (x_new, r_new);
        } else {
            gpu.map_mut(&ops::add_scaled(alpha), &mut x, &[&p])?;
            gpu.map_mut(&ops::add_scaled(-alpha), &mut r, &[&s])?;
        }
        let rr_new = f64::from(gpu.dot(&r, &r).await?);
        iterations += 1;
        check_finite("CG", iterations, rr_new)?;
        let beta = (rr_new / rr) as f32;
        p = gpu.map(&ops::add_scaled(beta), &[&r, &p])?;
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
