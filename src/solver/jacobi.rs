//! Jacobi's method for Ax = b (Fujimoto's paper, section 4.2): x <- x + D^-1 (b - A x).

use super::solution::{
    breathe, check_finite, check_system, inverse_diagonal, Observer, Progress, Solution,
};
use crate::error::{Error, Result};
use crate::gpu::ops;
use crate::gpu::Gpu;
use crate::kernels::Expr;
use crate::matrix::Matrix;

/// Settings of [`jacobi`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JacobiOptions {
    /// Stop once |b - Ax| <= tol |b|.
    pub tol: f64,
    /// Stop after this many iterations at most.
    pub max_iter: usize,
    /// Measure the residual (one scalar read-back) every this many iterations.
    pub check_every: usize,
}

impl Default for JacobiOptions {
    fn default() -> Self {
        JacobiOptions {
            tol: 1e-6,
            max_iter: 1000,
            check_every: 1,
        }
    }
}

/// Solves Ax = b by Jacobi's method from x = 0. Converges for diagonally dominant A; a residual
/// that grows 1e6-fold over its start, or turns NaN, is reported as divergence.
pub async fn jacobi(
    gpu: &Gpu,
    a: &Matrix,
    b: &Matrix,
    options: JacobiOptions,
    observe: Observer<'_>,
) -> Result<Solution> {
    let n = check_system(a, b, None)?;
    let start = gpu.counts();
    let d = inverse_diagonal(gpu, a, 1.0).await?;
    let b_norm = f64::from(gpu.dot(b, b).await?)
        .sqrt()
        .max(f64::MIN_POSITIVE);
    let mut x = gpu.fill(n, 1, 0.0)?;
    let mut residuals = vec![1.0];
    // One pass: x + d .* (b - w) with w = A x.
    let update = Expr::parse("a + d * (b - c)")?;
    let mut last_pause = crate::event_loop::now_ms();
    let mut iterations = 0;
    let mut converged = false;
    let every = options.check_every.max(1);
    while iterations < options.max_iter {
        let w = gpu.mul_vec(a, &x)?;
        let checked = (iterations + 1) % every == 0 || iterations + 1 == options.max_iter;
        // The residual of the current x comes free with w: r = b - w.
        let residual = if checked || iterations == 0 {
            let r = gpu.map(&ops::sub(), &[b, &w])?;
            Some(f64::from(gpu.dot(&r, &r).await?).sqrt() / b_norm)
        } else {
            None
        };
        if let Some(res) = residual {
            check_finite("Jacobi", iterations, res)?;
            if iterations > 0 {
                residuals.push(res);
            }
            if res <= options.tol {
                converged = true;
                break;
            }
            if res > 1e6 * residuals[0].max(1.0) {
                return Err(Error::Solver(format!(
                    "Jacobi diverged: the residual grew to {res:e} by iteration {iterations} (is A diagonally dominant?)"
                )));
            }
        }
        x = gpu.map(&update, &[&x, b, &w, &d])?;
        iterations += 1;
        let progress = Progress {
            iteration: iterations,
            of: options.max_iter,
            residual,
        };
        breathe(&mut last_pause).await;
        if !observe(progress) {
            return Err(Error::Cancelled);
        }
    }
    Ok(Solution {
        x,
        iterations,
        residuals,
        converged,
        counts: gpu.counts() - start,
    })
}
