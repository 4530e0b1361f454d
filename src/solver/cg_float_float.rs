//! Conjugate gradients in float-float: the same iteration as [`super::cg`] on
//! [`DdMatrix`] vectors (about 48 bits), with the scalars alpha and beta in float64 on the CPU.
//!
//! Float32 CG stops improving once the rounding of x and r (2^-24 relative) is as large as
//! what is left of the residual: near 1e-4 relative residual on 1D Poisson with n = 512
//! (condition number about 1e5). In float-float the same floor sits near 2^-48 times the
//! condition number, so the residual keeps falling to about 1e-11.

use super::cg::{iterate, CgOptions, Vectors};
use super::solution::{check_system, Observer, Solution};
use crate::error::{Error, Result};
use crate::gpu::{DdMatrix, FloatFloat, Gpu};

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
    check_system(&a.hi, &b.hi, x0.map(|x| &x.hi))?;
    if options.fused {
        return Err(Error::Unsupported(
            "fused CG is float32 only: in float-float the fused update would read x, p, r and s \
             as 8 textures (hi and lo each), more than the 6 a kernel may read; use fused: false"
                .into(),
        ));
    }
    let vectors = FloatFloatVectors {
        ff: gpu.float_float(),
        a,
    };
    iterate(gpu, &vectors, b, x0, options, observe).await
}

/// Float-float vectors: `A p` by the float-float product, the scalars kept in float64 (split
/// into hi + lo as the kernels' parameters).
struct FloatFloatVectors<'a> {
    ff: FloatFloat<'a>,
    a: &'a DdMatrix,
}

impl Vectors for FloatFloatVectors<'_> {
    type V = DdMatrix;

    fn apply(&self, p: &DdMatrix) -> Result<DdMatrix> {
        self.ff.mul_vec(self.a, p)
    }

    async fn dot(&self, a: &DdMatrix, b: &DdMatrix) -> Result<f64> {
        self.ff.dot(a, b).await
    }

    fn zeros_like(&self, b: &DdMatrix) -> Result<DdMatrix> {
        self.ff.zeros(b.rows(), b.cols())
    }

    fn sub(&self, a: &DdMatrix, b: &DdMatrix) -> Result<DdMatrix> {
        self.ff.sub(a, b)
    }

    fn add_scaled(&self, a: &DdMatrix, b: &DdMatrix, c: f64) -> Result<DdMatrix> {
        self.ff.add_scaled(a, b, c)
    }
}
