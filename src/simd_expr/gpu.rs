//! `y = A x + b` on the GPU: the kernel generated from the expression's program, its
//! coefficients baked in as literals ([`crate::kernels::linear()`]), run through [`Gpu::run`].

use super::expr::LinearExpr;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernels::{self, Kernel, LinearPlan, Program};
use crate::matrix::Matrix;

impl LinearExpr {
    /// How the kernel of this expression is put together: which instructions make each block
    /// row, and the gather and scatter that undo the permutation (see [`LinearPlan`]). Fails
    /// with [`Error::Argument`] past [`kernels::MAX_BAKED_SIZE`] or
    /// [`kernels::MAX_BAKED_INSTRUCTIONS`].
    pub fn plan(&self) -> Result<LinearPlan> {
        LinearPlan::new(&self.instructions(), self.permutation())
    }

    /// The fragment kernel that computes `y = A x + b` from [`LinearExpr::instructions`] with
    /// the coefficients as literals, in WGSL and GLSL ([`Kernel::wgsl_source`] and
    /// [`Kernel::glsl_source`] give the complete shaders). Its input and output are in the
    /// ORIGINAL order (the one given to [`LinearExpr::from_dense`]): the permutation is applied
    /// inside. Fails with [`Error::Argument`] past the caps of [`LinearExpr::plan`] or when a
    /// coefficient does not fit a float32.
    pub fn kernel(&self) -> Result<Kernel> {
        kernels::linear(&self.instructions(), self.permutation())
    }

    /// `y = A x + b` on `gpu` in one pass, for every column of `x` (m x c, one vector per
    /// column, ORIGINAL order): y is m x c, in the original order too, whatever the
    /// permutation. Fails with [`Error::Shape`] unless `x` has m rows, and as
    /// [`LinearExpr::kernel`] does.
    pub fn apply_gpu(&self, gpu: &Gpu, x: &Matrix) -> Result<Matrix> {
        if x.rows() != self.size() {
            return Err(Error::Shape(format!(
                "an expression of size {m} needs x with {m} rows (one vector per column), got \
                 a {}x{} matrix",
                x.rows(),
                x.cols(),
                m = self.size()
            )));
        }
        let kernel = self.kernel()?;
        gpu.run(Program::new(kernel, vec![x.layout], x.layout), &[x])
    }
}
