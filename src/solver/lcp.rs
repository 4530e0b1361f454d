//! Projected Jacobi for the linear complementarity problem (the ShaderX2 article, section 4.2):
//! find x >= 0 with w = Ax + b >= 0 and x^T w = 0, by x <- max(0, x + omega D (Ax + b)),
//! D = diag(A)^-1, omega negative in the seed's convention (-0.1 there).

use super::solution::{
    breathe, check_finite, check_omega, check_system, inverse_diagonal, Observer, Progress,
    Solution,
};
use super::MAX_KERNEL_ITERATIONS;
use crate::error::{Error, Result};
use crate::event_loop::{next_chunk, now_ms};
use crate::gpu::{Counts, Gpu};
use crate::kernels::Expr;
use crate::matrix::Matrix;

/// Settings of [`lcp_jacobi`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LcpOptions {
    /// The relaxation, in the seed's sign convention: x + omega D (Ax + b), so negative.
    pub omega: f32,
    /// Iterations to run (there is no tolerance: the seed runs a fixed count, 2n in the wall).
    pub iterations: usize,
    /// Also measure the complementarity residual max |min(x, Ax + b)| at the end.
    pub residual: bool,
    /// Let the caller see progress (and cancel) every this many iterations; the GPU queue is
    /// drained then, but no data is read back inside the loop.
    pub progress_every: usize,
}

impl Default for LcpOptions {
    fn default() -> Self {
        LcpOptions {
            omega: -0.1,
            iterations: 100,
            residual: true,
            progress_every: 50,
        }
    }
}

/// Projected Jacobi's element-wise step over x, b, w = A x and d (omega over A's diagonal):
/// `x = max(x + (b + w) .* d, 0)`, one pass.
pub const JACOBI_STEP: &str = "max(a + (b + c) * d, 0)";

/// Runs projected Jacobi from `x0` (zero if `None`): per iteration w = A x (2 passes) and one
/// fused pass x = max(x + (b + w) .* d, 0) (the ShaderX2 article's madad and max in one shader).
pub async fn lcp_jacobi(
    gpu: &Gpu,
    a: &Matrix,
    b: &Matrix,
    x0: Option<&Matrix>,
    options: LcpOptions,
    observe: Observer<'_>,
) -> Result<Solution> {
    let n = check_system(a, b, x0)?;
    check_omega(options.omega)?;
    let start = gpu.counts();
    let d = inverse_diagonal(gpu, a, options.omega).await?;
    let mut x = match x0 {
        Some(x0) => x0.clone(),
        None => gpu.fill(n, 1, 0.0)?,
    };
    let step = Expr::parse(JACOBI_STEP)?;
    let mut last_pause = now_ms();
    let every = options.progress_every.max(1);
    for k in 1..=options.iterations {
        let w = gpu.mul_vec(a, &x)?;
        x = gpu.map(&step, &[&x, b, &w, &d])?;
        if k % every == 0 || k == options.iterations {
            gpu.finish().await?;
            let progress = Progress {
                iteration: k,
                of: options.iterations,
                residual: None,
            };
            breathe(&mut last_pause).await;
            if !observe(progress) {
                return Err(Error::Cancelled);
            }
        }
    }
    solution(gpu, (a, b, x), &options, start, None).await
}

/// Iterations of [`lcp_jacobi_compute`]'s first dispatch, at most: the first chance to cancel
/// comes after them. Natively (the benchmark) there is no page to keep alive: one dispatch.
const FIRST_DISPATCH: usize = if cfg!(target_arch = "wasm32") {
    64
} else {
    MAX_KERNEL_ITERATIONS
};

/// The same iteration as [`lcp_jacobi`], many iterations in ONE compute dispatch (WebGPU only;
/// on WebGL2 a clear `Unsupported` error): see [`super::lcp_jacobi_blocks`]. `workgroups`
/// overrides the device's choice. Reads back the diagonal (to refuse a zero) and, if asked, the
/// residual. Up to `FIRST_DISPATCH` iterations are one dispatch; a longer run is a chain of
/// dispatches of about 100 ms of GPU time each, each starting from the last one's x, with
/// `observe` told of the progress (and cancelling) between them: no dispatch holds the GPU for
/// long enough to be stopped by a watchdog, and no run is beyond cancelling.
pub async fn lcp_jacobi_compute(
    gpu: &Gpu,
    a: &Matrix,
    b: &Matrix,
    x0: Option<&Matrix>,
    options: LcpOptions,
    workgroups: Option<usize>,
    observe: Observer<'_>,
) -> Result<Solution> {
    let n = check_system(a, b, x0)?;
    let start = gpu.counts();
    // Refuses a zero diagonal with the same message as the fragment path.
    inverse_diagonal(gpu, a, options.omega).await?;
    let mut x = match x0 {
        Some(x0) => x0.clone(),
        None => gpu.fill(n, 1, 0.0)?,
    };
    let (mut done, mut chunk) = (0, FIRST_DISPATCH);
    while done < options.iterations {
        let (began, count) = (now_ms(), chunk.min(options.iterations - done));
        x = super::lcp_jacobi_blocks(
            gpu,
            (a, b, &x),
            None,
            (options.omega, count),
            (workgroups, None),
        )?;
        done += count;
        if done < options.iterations {
            gpu.settle().await?;
            let progress = Progress {
                iteration: done,
                of: options.iterations,
                residual: None,
            };
            if !observe(progress) {
                return Err(Error::Cancelled);
            }
            chunk = next_chunk(chunk, now_ms() - began, 100.0);
        }
    }
    let nan = "projected Jacobi (single dispatch) gave NaN: A or b holds NaN or infinity, or \
               this GPU did not run the solver's workgroups side by side (try workgroups = 1)";
    solution(gpu, (a, b, x), &options, start, Some(nan)).await
}

/// The answer of `options.iterations` projected Jacobi iterations that ended at `x`, with the
/// complementarity residual if asked for. `nan`: the error to give where the residual is NaN
/// because x itself is.
async fn solution(
    gpu: &Gpu,
    (a, b, x): (&Matrix, &Matrix, Matrix),
    options: &LcpOptions,
    start: Counts,
    nan: Option<&str>,
) -> Result<Solution> {
    let mut residuals = Vec::new();
    if options.residual {
        let res = f64::from(complementarity(gpu, a, b, &x).await?);
        if let Some(nan) = nan {
            if res.is_nan() && gpu.max_abs(&x).await?.is_nan() {
                return Err(Error::Solver(nan.into()));
            }
        }
        check_finite("projected Jacobi", options.iterations, res)?;
        residuals.push(res);
    }
    Ok(Solution {
        x,
        iterations: options.iterations,
        residuals,
        converged: false,
        counts: gpu.counts() - start,
    })
}

/// max |min(x, Ax + b)|: zero exactly at a solution of the LCP (NaN if anything is NaN).
pub async fn complementarity(gpu: &Gpu, a: &Matrix, b: &Matrix, x: &Matrix) -> Result<f32> {
    let w = gpu.mul_vec(a, x)?;
    let m = gpu.map(&Expr::parse("min(a, b + c)")?, &[x, b, &w])?;
    gpu.max_abs(&m).await
}
