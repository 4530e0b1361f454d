//! Iterative refinement (issue 18, item 4): float-float accuracy from float32 solves.
//!
//! ```text
//!  x = 0 (float-float)
//!  repeat:  r = b - A x            float-float (A x in 2 passes, the subtraction in 1)
//!           |r| / |b| <= tol?      float-float dot, one float64 back: stop
//!           A.hi d = r.hi          float32 CG or Jacobi, from d = 0, to innerTol relative
//!           x = x + d              float-float (d as hi + 0)
//! ```
//!
//! Each float32 solve needs only to shrink the residual by its own relative tolerance: the
//! float-float residual carries what float32 rounded away into the next step, so the error
//! falls by about `innerTol` per outer step until float-float's own floor (about 2^-48 times
//! the condition number). The inner tolerance is relative to the inner right-hand side
//! (`|r.hi - A.hi d| <= innerTol |r.hi|`, the inner solver's own measure), default 1e-4, with
//! at most `max_inner` inner iterations per step (an inner solve that stops short is fine:
//! the next outer step measures the true residual). The correction solves with `A.hi`, A
//! rounded to float32: A's `lo` only slows the outer convergence (by about
//! `cond(A) |A.lo| / |A|`), it never moves the answer.

use super::cg::{cg, CgOptions};
use super::jacobi::{jacobi, JacobiOptions};
use super::solution::{check_finite, check_system, Observer, Progress};
use crate::error::{Error, Result};
use crate::gpu::{Counts, DdMatrix, Gpu};

/// The float32 solver of each correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerSolver {
    /// Conjugate gradients ([`super::cg`]), for symmetric positive definite A.
    Cg,
    /// Jacobi's method ([`super::jacobi`]), for diagonally dominant A.
    Jacobi,
}

impl InnerSolver {
    /// The solver named `name`: "cg" or "jacobi".
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "cg" => Ok(InnerSolver::Cg),
            "jacobi" => Ok(InnerSolver::Jacobi),
            other => Err(Error::Argument(format!(
                "unknown inner solver \"{other}\": use \"cg\" or \"jacobi\""
            ))),
        }
    }
}

/// Settings of [`refine`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RefineOptions {
    /// The float32 solver of the corrections.
    pub solver: InnerSolver,
    /// Stop once the float-float residual `|b - A x| <= tol |b|` (default 1e-10).
    pub tol: f64,
    /// Each inner solve stops at `|r - A d| <= inner_tol |r|` (default 1e-4).
    pub inner_tol: f64,
    /// Outer steps at most (default 20).
    pub max_outer: usize,
    /// Inner iterations per outer step at most (default 1000).
    pub max_inner: usize,
}

impl Default for RefineOptions {
    fn default() -> Self {
        RefineOptions {
            solver: InnerSolver::Cg,
            tol: 1e-10,
            inner_tol: 1e-4,
            max_outer: 20,
            max_inner: 1000,
        }
    }
}

/// What [`refine`] returns.
#[derive(Debug)]
pub struct Refinement {
    /// The solution, float-float, on the GPU.
    pub x: DdMatrix,
    /// Outer steps run (corrections added).
    pub outer: usize,
    /// Inner (float32) iterations in all.
    pub inner: usize,
    /// Inner iterations of each outer step.
    pub inner_per_outer: Vec<usize>,
    /// `|b - A x| / |b|` measured in float-float before the first step and after each.
    pub residuals: Vec<f64>,
    /// Whether `tol` was reached.
    pub converged: bool,
    /// GPU passes and read-backs in all (inner solves included).
    pub counts: Counts,
}

/// Solves `A x = b` for float-float A and b by iterative refinement: float-float residuals,
/// float32 corrections by `options.solver` (see the module's documentation). `observe` hears
/// `(outer step, max_outer, residual)` after each outer step and `(outer steps done,
/// max_outer, None)` during the inner solves; returning false cancels. Stops early, not
/// converged, where an outer step does not lower the residual (the float-float floor, or a
/// correction too poor to help).
pub async fn refine(
    gpu: &Gpu,
    a: &DdMatrix,
    b: &DdMatrix,
    options: RefineOptions,
    observe: Observer<'_>,
) -> Result<Refinement> {
    let n = check_system(&a.hi, &b.hi, None)?;
    check_system(&a.lo, &b.lo, None)?;
    for (name, v) in [("tol", options.tol), ("innerTol", options.inner_tol)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::Argument(format!(
                "{name} must be a finite number >= 0, got {v}"
            )));
        }
    }
    let (start, ff) = (gpu.counts(), gpu.float_float());
    let b_norm = ff.dot(b, b).await?.sqrt();
    check_finite("refinement", 0, b_norm)?;
    let relative = |rr: f64| {
        if b_norm > 0.0 {
            rr.sqrt() / b_norm
        } else {
            rr.sqrt()
        }
    };
    let zero = gpu.fill(n, 1, 0.0)?;
    let mut x = ff.zeros(n, 1)?;
    let mut r = b.clone();
    let mut residual = relative(b_norm * b_norm);
    let mut residuals = vec![residual];
    let mut inner_per_outer = Vec::new();
    let mut outer = 0;
    while residual > options.tol && outer < options.max_outer {
        let done = outer;
        let mut inner_observe = |_: Progress| {
            observe(Progress {
                iteration: done,
                of: options.max_outer,
                residual: None,
            })
        };
        let solution = match options.solver {
            InnerSolver::Cg => {
                let o = CgOptions {
                    tol: options.inner_tol,
                    max_iter: options.max_inner,
                    fused: false,
                };
                cg(gpu, &a.hi, &r.hi, None, o, &mut inner_observe).await?
            }
            InnerSolver::Jacobi => {
                let o = JacobiOptions {
                    tol: options.inner_tol,
                    max_iter: options.max_inner,
                    check_every: 1,
                };
                jacobi(gpu, &a.hi, &r.hi, o, &mut inner_observe).await?
            }
        };
        inner_per_outer.push(solution.iterations);
        let d = DdMatrix {
            hi: solution.x,
            lo: zero.clone(),
        };
        x = ff.add(&x, &d)?;
        r = ff.sub(b, &ff.mul_vec(a, &x)?)?;
        let next = relative(ff.dot(&r, &r).await?);
        outer += 1;
        check_finite("refinement", outer, next)?;
        residuals.push(next);
        let progress = Progress {
            iteration: outer,
            of: options.max_outer,
            residual: Some(next),
        };
        if !observe(progress) {
            return Err(Error::Cancelled);
        }
        let stalled = next >= residual;
        residual = next;
        if stalled {
            break;
        }
    }
    Ok(Refinement {
        x,
        outer,
        inner: inner_per_outer.iter().sum(),
        inner_per_outer,
        residuals,
        converged: residual <= options.tol,
        counts: gpu.counts() - start,
    })
}
