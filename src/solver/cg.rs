//! Conjugate gradients for symmetric positive definite A (the ShaderX2 article, section 4.1).

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
    let space = Float32 {
        gpu,
        apply,
        fused: options.fused,
    };
    iterate(gpu, &space, b, x0, options, observe).await
}

/// What CG does with its vectors, so that ONE iteration ([`iterate`]) serves float32
/// matrices ([`cg`], [`cg_poisson_2d`]) and float-float pairs ([`super::cg_float_float`]).
pub(super) trait Vectors {
    /// A vector: a matrix of b's shape.
    type V: Clone;
    /// `A p`.
    fn apply(&self, p: &Self::V) -> Result<Self::V>;
    /// `a . b`, read back.
    async fn dot(&self, a: &Self::V, b: &Self::V) -> Result<f64>;
    /// Zeros of `b`'s shape.
    fn zeros_like(&self, b: &Self::V) -> Result<Self::V>;
    /// `a - b`.
    fn sub(&self, a: &Self::V, b: &Self::V) -> Result<Self::V>;
    /// `a + c b`.
    fn add_scaled(&self, a: &Self::V, b: &Self::V, c: f64) -> Result<Self::V>;
    /// `(x + alpha p, r - alpha s)` in one pass, where these vectors fuse the update (else
    /// `None`: a pass each).
    fn fused_update(
        &self,
        _xprs: [&Self::V; 4],
        _alpha: f64,
    ) -> Option<Result<(Self::V, Self::V)>> {
        None
    }
}

/// Float32 vectors: the scalars rounded to float32 as the kernels take them; the update fused
/// into one two-target pass where asked.
struct Float32<'a> {
    gpu: &'a Gpu,
    apply: &'a dyn Fn(&Matrix) -> Result<Matrix>,
    fused: bool,
}

impl Vectors for Float32<'_> {
    type V = Matrix;

    fn apply(&self, p: &Matrix) -> Result<Matrix> {
        (self.apply)(p)
    }

    async fn dot(&self, a: &Matrix, b: &Matrix) -> Result<f64> {
        Ok(f64::from(self.gpu.dot(a, b).await?))
    }

    fn zeros_like(&self, b: &Matrix) -> Result<Matrix> {
        self.gpu.fill(b.rows(), b.cols(), 0.0)
    }

    fn sub(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.gpu.map(&ops::sub(), &[a, b])
    }

    fn add_scaled(&self, a: &Matrix, b: &Matrix, c: f64) -> Result<Matrix> {
        self.gpu.map(&ops::add_scaled(c as f32), &[a, b])
    }

    fn fused_update(
        &self,
        [x, p, r, s]: [&Matrix; 4],
        alpha: f64,
    ) -> Option<Result<(Matrix, Matrix)>> {
        self.fused.then(|| {
            let (x_next, r_next) = fused_update(alpha as f32);
            self.gpu.map2(&x_next, &r_next, &[x, p, r, s])
        })
    }
}

/// The fused update of float32 CG (`CgOptions::fused`), one pass of two render targets over
/// inputs x, p, r, s: `(x + alpha p, r - alpha s)`.
pub fn fused_update(alpha: f32) -> (Expr, Expr) {
    (
        ops::add_scaled(alpha),
        Expr::call2(
            Func2::Sub,
            Expr::Input(2),
            Expr::call2(Func2::Mul, Expr::Input(3), Expr::Const(alpha)),
        ),
    )
}

/// CG's iteration on any [`Vectors`], warm-started from `x0` (zero if `None`); the scalars
/// alpha and beta in float64 on the CPU.
pub(super) async fn iterate<S: Vectors>(
    gpu: &Gpu,
    space: &S,
    b: &S::V,
    x0: Option<&S::V>,
    options: CgOptions,
    observe: Observer<'_>,
) -> Result<Solution<S::V>> {
    let start = gpu.counts();
    let b_norm = space.dot(b, b).await?.sqrt();
    check_finite("CG", 0, b_norm)?;
    let (mut x, mut r) = match x0 {
        Some(x0) => {
            let ax = space.apply(x0)?;
            (x0.clone(), space.sub(b, &ax)?)
        }
        None => (space.zeros_like(b)?, b.clone()),
    };
    let relative = |rr: f64| {
        if b_norm > 0.0 {
            rr.sqrt() / b_norm
        } else {
            rr.sqrt()
        }
    };
    let mut rr = space.dot(&r, &r).await?;
    let mut residuals = vec![relative(rr)];
    let mut p = r.clone();
    let mut last_pause = crate::event_loop::now_ms();
    let mut iterations = 0;
    while relative(rr) > options.tol && iterations < options.max_iter {
        let s = space.apply(&p)?;
        let t = space.dot(&p, &s).await?;
        check_finite("CG", iterations + 1, t)?;
        if t <= 0.0 {
            return Err(Error::Solver(format!(
                "CG broke down at iteration {}: p^T A p = {t:e} <= 0, so A is not positive definite",
                iterations + 1
            )));
        }
        let alpha = rr / t;
        (x, r) = match space.fused_update([&x, &p, &r, &s], alpha) {
            Some(both) => both?,
            None => (
                space.add_scaled(&x, &p, alpha)?,
                space.add_scaled(&r, &s, -alpha)?,
            ),
        };
        let rr_new = space.dot(&r, &r).await?;
        iterations += 1;
        check_finite("CG", iterations, rr_new)?;
        p = space.add_scaled(&r, &p, rr_new / rr)?;
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
