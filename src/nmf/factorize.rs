//! NMF on the GPU: each update is products ([`Gpu::mul`], [`Gpu::mul_transposed`]) and
//! one fused element-wise pass `a * b / (c + eps)` per factor (the thesis, section 5, Figure 9).

use crate::error::{Error, Result};
use crate::event_loop::next_turn;
use crate::gpu::{Counts, Gpu, ProductKernel, Transpose};
use crate::kernels::Expr;
use crate::kernels::Func2::{Add, Div, Mul};
use crate::matrix::Matrix;
use crate::solver::{Observer, Progress};

/// Which cost the multiplicative updates lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Least squares, ||F - U V^T||_F^2: V <- V .* (F^T U) ./ (V U^T U + eps), U <- U .* (F V)
    /// ./ (U V^T V + eps) (Figure 9 of the thesis).
    Euclidean,
    /// Lee and Seung's divergence (the thesis's Eqs. 5-7): with Q = F ./ (U V^T + eps),
    /// V <- V .* (Q^T U) ./ (1 colsum(U) + eps), U <- U .* (Q V) ./ (1 colsum(V) + eps).
    Divergence,
}

/// In which order U and V are updated within an iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// V first, then U from the new V (Lee and Seung's way; each step lowers the cost).
    Alternating,
    /// Both ratios from the old U and V, as Figure 9 is printed.
    Simultaneous,
}

/// Settings of [`factorize`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NmfOptions {
    /// Iterations (one update of each factor).
    pub iterations: usize,
    /// The cost lowered.
    pub rule: Rule,
    /// The update order.
    pub order: Order,
    /// After each iteration, scale the columns of U to sum 1 (the thesis's Eq. 6; V is left as
    /// it is, as printed, so the cost may rise at that step).
    pub normalize: bool,
    /// Added to every denominator.
    pub eps: f32,
    /// ||F - U V^T||_F^2 is measured (one read-back) before the first iteration, every
    /// `check_every` iterations and after the last; 0 measures only the start and the end.
    pub check_every: usize,
}

impl Default for NmfOptions {
    fn default() -> Self {
        NmfOptions {
            iterations: 100,
            rule: Rule::Euclidean,
            order: Order::Alternating,
            normalize: false,
            eps: 1e-9,
            check_every: 10,
        }
    }
}

/// What [`factorize`] returns.
#[derive(Debug)]
pub struct Factors {
    /// U, m x k.
    pub u: Matrix,
    /// V, n x k.
    pub v: Matrix,
    /// (iteration, ||F - U V^T||_F^2) at each check, iteration 0 first.
    pub errors: Vec<(usize, f64)>,
    /// Iterations run (fewer than asked when the observer cancelled).
    pub iterations: usize,
    /// GPU passes and read-backs the whole run took.
    pub counts: Counts,
}

/// The rank k of a factorisation of an m x n F: from 1 to min(m, n), else a clear error.
pub fn check_rank(m: usize, n: usize, k: usize) -> Result<()> {
    if (1..=m.min(n)).contains(&k) {
        return Ok(());
    }
    Err(Error::Argument(format!(
        "k must be from 1 to min(m, n) = {} for a {m}x{n} F, got {k}",
        m.min(n)
    )))
}

/// Factorises `f` (m x n) from the starting factors `u0` (m x k) and `v0` (n x k), all
/// non-negative; `observe` hears of every check and may cancel. The caller checks that F is
/// non-negative and finite (the JS API does, on the values it uploads).
pub async fn factorize(
    gpu: &Gpu,
    f: &Matrix,
    (u0, v0): (&Matrix, &Matrix),
    options: NmfOptions,
    observe: Observer<'_>,
) -> Result<Factors> {
    let (m, n) = (f.rows(), f.cols());
    let k = u0.cols();
    check_rank(m, n, k)?;
    for (name, x, rows) in [("u0", u0, m), ("v0", v0, n)] {
        if (x.rows(), x.cols()) != (rows, k) {
            return Err(Error::Shape(format!(
                "{name} must be {rows}x{k} for a {m}x{n} F and k = {k}, got {}x{}",
                x.rows(),
                x.cols()
            )));
        }
    }
    if !(options.eps >= 0.0 && options.eps.is_finite()) {
        return Err(Error::Argument(format!(
            "eps must be finite and at least 0, got {}",
            options.eps
        )));
    }
    let start = gpu.counts();
    let step = Step::new(gpu, f, options.eps)?;
    let (mut u, mut v) = (u0.clone(), v0.clone());
    let mut errors = vec![(0, step.error(&u, &v).await?)];
    let mut done = 0;
    while done < options.iterations {
        // The page gets a turn after each update (recording them only queues GPU work, so the
        // GPU never waits for it): the first iteration builds every kernel's pipeline, 10 to
        // 30 ms of the page's time each here, and in one task they held the page 100 ms.
        (u, v) = match options.order {
            Order::Alternating => {
                let v = step.update_v(options.rule, &u, &v)?;
                next_turn().await;
                (step.update_u(options.rule, &u, &v)?, v)
            }
            Order::Simultaneous => {
                let new_u = step.update_u(options.rule, &u, &v)?;
                next_turn().await;
                (new_u, step.update_v(options.rule, &u, &v)?)
            }
        };
        next_turn().await;
        if options.normalize {
            u = step.normalize(&u)?;
        }
        done += 1;
        let check = options.check_every > 0 && done % options.check_every == 0;
        if check || done == options.iterations {
            let error = step.error(&u, &v).await?;
            if !error.is_finite() {
                return Err(Error::Solver(format!(
                    "NMF diverged: ||F - U V^T||^2 is {error} at iteration {done}"
                )));
            }
            errors.push((done, error));
            let progress = Progress {
                iteration: done,
                of: options.iterations,
                residual: Some(error),
            };
            if !observe(progress) {
                break;
            }
        }
    }
    Ok(Factors {
        u,
        v,
        errors,
        iterations: done,
        counts: gpu.counts() - start,
    })
}

/// One factorisation's fixed parts: F, the columns of ones that sum and broadcast, the fused
/// expressions.
struct Step<'a> {
    gpu: &'a Gpu,
    f: &'a Matrix,
    /// m x 1 and n x 1 columns of ones.
    ones_m: Matrix,
    ones_n: Matrix,
    /// `a * b / (c + eps)`.
    ratio: Expr,
    /// `a / (b + eps)`.
    quotient: Expr,
}

/// The element-wise pass of each multiplicative update, over the factor (a), the numerator (b)
/// and the denominator (c): `a * b / (c + eps)`, one pass after the products.
pub fn update(eps: f32) -> Expr {
    let (a, b, c) = (Expr::Input(0), Expr::Input(1), Expr::Input(2));
    Expr::call2(
        Div,
        Expr::call2(Mul, a, b),
        Expr::call2(Add, c, Expr::Const(eps)),
    )
}

impl<'a> Step<'a> {
    fn new(gpu: &'a Gpu, f: &'a Matrix, eps: f32) -> Result<Self> {
        let (a, b) = (Expr::Input(0), Expr::Input(1));
        Ok(Step {
            gpu,
            f,
            ones_m: gpu.fill(f.rows(), 1, 1.0)?,
            ones_n: gpu.fill(f.cols(), 1, 1.0)?,
            ratio: update(eps),
            quotient: Expr::call2(Div, a, Expr::call2(Add, b, Expr::Const(eps))),
        })
    }

    /// The new V from U and V.
    fn update_v(&self, rule: Rule, u: &Matrix, v: &Matrix) -> Result<Matrix> {
        let g = self.gpu;
        let (numerator, denominator) = match rule {
            Rule::Euclidean => (self.tr_mul(self.f, u)?, g.mul(v, &self.tr_mul(u, u)?)?),
            Rule::Divergence => {
                let q = self.q(u, v)?;
                (self.tr_mul(&q, u)?, self.broadcast_sums(u, self.f.cols())?)
            }
        };
        g.map(&self.ratio, &[v, &numerator, &denominator])
    }

    /// The new U from U and V.
    fn update_u(&self, rule: Rule, u: &Matrix, v: &Matrix) -> Result<Matrix> {
        let g = self.gpu;
        let (numerator, denominator) = match rule {
            Rule::Euclidean => (g.mul(self.f, v)?, g.mul(u, &self.tr_mul(v, v)?)?),
            Rule::Divergence => {
                let q = self.q(u, v)?;
                (g.mul(&q, v)?, self.broadcast_sums(v, self.f.rows())?)
            }
        };
        g.map(&self.ratio, &[u, &numerator, &denominator])
    }

    /// Q = F ./ (U V^T + eps), m x n.
    fn q(&self, u: &Matrix, v: &Matrix) -> Result<Matrix> {
        let g = self.gpu;
        g.map(&self.quotient, &[self.f, &self.mul_tr(u, v)?])
    }

    /// `a^T b` by the fastest kernel here ([`Gpu::mul_transposed`]).
    fn tr_mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.gpu
            .mul_transposed(ProductKernel::Auto, a, b, Transpose::A)
    }

    /// `a b^T` by the fastest kernel here ([`Gpu::mul_transposed`]).
    fn mul_tr(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.gpu
            .mul_transposed(ProductKernel::Auto, a, b, Transpose::B)
    }

    /// The column of ones with `rows` rows (m or n).
    fn ones(&self, rows: usize) -> &Matrix {
        if rows == self.ones_m.rows() {
            &self.ones_m
        } else {
            &self.ones_n
        }
    }

    /// The column sums of `x` (m or n rows) repeated down `rows` rows: 1 (x^T 1)^T, two
    /// products of inner dimension rows(x) and 1.
    fn broadcast_sums(&self, x: &Matrix, rows: usize) -> Result<Matrix> {
        self.mul_tr(self.ones(rows), &self.tr_mul(x, self.ones(x.rows()))?)
    }

    /// U with each column divided by its sum (plus eps).
    fn normalize(&self, u: &Matrix) -> Result<Matrix> {
        let sums = self.broadcast_sums(u, self.f.rows())?;
        self.gpu.map(&self.quotient, &[u, &sums])
    }

    /// ||F - U V^T||_F^2, one read-back.
    async fn error(&self, u: &Matrix, v: &Matrix) -> Result<f64> {
        let g = self.gpu;
        let d = g.map(&crate::gpu::ops::sub(), &[self.f, &self.mul_tr(u, v)?])?;
        // The iterations since the last check, U V^T and the reduction are queued on the GPU:
        // wait for them without holding the page (WebGL2 polls a fence) before the scalar is
        // read. A read at once held the page for as long as the GPU took: 10 iterations, 5 s on
        // a CPU-emulated GPU (and the reduction's kernels compiled first, at the first check).
        Ok(f64::from(g.dot_settled(&d, &d).await?))
    }
}
