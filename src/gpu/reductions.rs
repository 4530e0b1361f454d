//! Reductions on the GPU: 16-fold passes down to one texel, then its four components; only the
//! scalar is read back.

use super::{same_shape, Gpu};
use crate::error::Result;
use crate::kernels::Reduction;
use crate::matrix::Matrix;

impl Gpu {
    /// `sum a_ij b_ij` of two matrices of one shape (`a^T b` for vectors), reduced on the GPU;
    /// only the scalar is read back.
    pub async fn dot(&self, a: &Matrix, b: &Matrix) -> Result<f32> {
        same_shape("dot", a, b)?;
        let s = self.reduce(Reduction::Dot, a, Some(b))?;
        self.read_scalar(s).await
    }

    /// The sum of all elements, reduced on the GPU.
    pub async fn sum_all(&self, a: &Matrix) -> Result<f32> {
        let s = self.reduce(Reduction::Sum, a, None)?;
        self.read_scalar(s).await
    }

    /// The largest |element| (NaN if any element is NaN), reduced on the GPU.
    pub async fn max_abs(&self, a: &Matrix) -> Result<f32> {
        let s = self.reduce(Reduction::MaxAbs, a, None)?;
        self.read_scalar(s).await
    }

    /// Reduces every element of `a` (with `b` for a dot product): 16-fold passes down to one
    /// texel, then its four components. Returns a 1 x 1 matrix.
    fn reduce(&self, kind: Reduction, a: &Matrix, b: Option<&Matrix>) -> Result<Matrix> {
        let mut inputs = vec![a];
        inputs.extend(b);
        let later = if kind == Reduction::Dot {
            Reduction::Sum
        } else {
            kind
        };
        let mut partial: Option<Matrix> = None;
        loop {
            let current = partial.as_ref().map_or(a.layout, |p| p.layout);
            if partial.is_some() && current.width() == 1 && current.height() == 1 {
                break;
            }
            let w = current.width().div_ceil(4);
            let h = current.height().div_ceil(4);
            let out = self.layout(4 * h, w)?;
            let next = match &partial {
                None => self.run_kernel(kind.pass(), &inputs, out)?,
                Some(p) => self.run_kernel(later.pass(), &[p], out)?,
            };
            partial = Some(next);
        }
        let p = partial.expect("the loop runs at least once");
        self.run_kernel(later.last(), &[&p], self.layout(1, 1)?)
    }

    async fn read_scalar(&self, m: Matrix) -> Result<f32> {
        Ok(self.read(&m).await?[0])
    }
}
