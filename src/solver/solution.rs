//! What a solver returns, and how a caller follows and cancels a run.

use crate::error::{Error, Result};
use crate::event_loop::now_ms;
use crate::gpu::{Counts, Gpu};
use crate::kernels::{Expr, Func2};
use crate::matrix::Matrix;

/// A solver's answer and what it cost; `X` is the solution's type (a float-float
/// [`crate::gpu::DdMatrix`] for [`super::cg_float_float`]).
#[derive(Debug)]
pub struct Solution<X = Matrix> {
    /// The solution vector, on the GPU.
    pub x: X,
    /// Iterations run.
    pub iterations: usize,
    /// The residual measure after each iteration (iteration 0 first, where measured): relative
    /// residual |b - Ax| / |b| for CG and Jacobi, max |min(x, Ax + b)| for the LCP.
    pub residuals: Vec<f64>,
    /// Whether the tolerance was reached (always false for a fixed iteration count).
    pub converged: bool,
    /// GPU passes and read-backs the solve took.
    pub counts: Counts,
}

/// Where a run stands, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Iterations done.
    pub iteration: usize,
    /// Iterations at most.
    pub of: usize,
    /// The latest residual, where one was measured.
    pub residual: Option<f64>,
}

/// Called as a run goes on; returning `false` cancels it.
pub type Observer<'a> = &'a mut dyn FnMut(Progress) -> bool;

/// Checks that `a` is n x n and `b` (and `x0`) are n x 1; returns n.
pub(crate) fn check_system(a: &Matrix, b: &Matrix, x0: Option<&Matrix>) -> Result<usize> {
    let mut vectors = vec![("b", b)];
    vectors.extend(x0.map(|x0| ("x0", x0)));
    check_vectors(a, &vectors)
}

/// Checks that `a` is n x n and each named vector n x 1; returns n.
pub(crate) fn check_vectors(a: &Matrix, vectors: &[(&str, &Matrix)]) -> Result<usize> {
    let n = a.rows();
    if a.cols() != n {
        return Err(Error::Shape(format!(
            "A must be square, got {}x{}",
            a.rows(),
            a.cols()
        )));
    }
    for (name, v) in vectors {
        if v.rows() != n || v.cols() != 1 {
            return Err(Error::Shape(format!(
                "{name} must be a {n}x1 vector for a {n}x{n} A, got {}x{}",
                v.rows(),
                v.cols()
            )));
        }
    }
    Ok(n)
}

/// Projected Jacobi's omega: negative and finite, in the seed's convention.
pub(crate) fn check_omega(omega: f32) -> Result<()> {
    if omega < 0.0 && omega.is_finite() {
        Ok(())
    } else {
        Err(Error::Solver(format!(
            "omega must be negative in this convention (x + omega D (Ax + b), the seed uses -0.1), got {omega}"
        )))
    }
}

/// d = omega / diag(A), refusing a zero (or non-finite) diagonal element.
pub(crate) async fn inverse_diagonal(gpu: &Gpu, a: &Matrix, omega: f32) -> Result<Matrix> {
    let d = gpu.diagonal(a)?;
    let values = gpu.read(&d).await?;
    if let Some(i) = values.iter().position(|v| *v == 0.0 || !v.is_finite()) {
        return Err(Error::Solver(format!(
            "A has {} on its diagonal at row {i}: Jacobi methods divide by the diagonal",
            values[i]
        )));
    }
    let omega_over = Expr::call2(Func2::Div, Expr::Const(omega), Expr::Input(0));
    gpu.map(&omega_over, &[&d])
}

/// Fails on a residual that is NaN or infinite.
pub(crate) fn check_finite(what: &str, iteration: usize, value: f64) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::Solver(format!(
            "{what} diverged: the residual is {value} at iteration {iteration}"
        )))
    }
}

/// Lets the page breathe during a long run: where more than 30 ms passed since the last pause,
/// waits for one turn of the browser's event loop (a read-back on WebGL2 never does), so that
/// the page repaints and a Cancel click gets through.
pub(crate) async fn breathe(last: &mut f64) {
    let now = now_ms();
    if now - *last < 30.0 {
        return;
    }
    crate::event_loop::next_turn().await;
    *last = now_ms();
}
