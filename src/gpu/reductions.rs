//! Reductions on the GPU: passes down to one texel (16-fold fragment passes, or 4096-fold
//! compute passes on WebGPU), then its four components; only the scalar is read back.

use super::base::same_shape;
use super::Gpu;
use crate::error::Result;
use crate::kernels::Reduction;
use crate::matrix::Matrix;

/// How a reduction's passes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReductionKernel {
    /// [`ReductionKernel::Compute`] where compute kernels run on a hardware adapter, else
    /// [`ReductionKernel::Passes`] (a software adapter pays for every barrier: on SwiftShader
    /// the compute passes were 10x slower).
    #[default]
    Auto,
    /// Fragment passes, each over 4 x 4 blocks of texels (both backends).
    Passes,
    /// Compute passes, each over 64 x 64 blocks of texels (WebGPU): on the H100 natively 2.2
    /// to 2.5 TB/s at n = 8192, where the fragment passes make 0.1.
    Compute,
}

impl Gpu {
    /// `sum a_ij b_ij` of two matrices of one shape (`a^T b` for vectors), reduced on the GPU;
    /// only the scalar is read back.
    pub async fn dot(&self, a: &Matrix, b: &Matrix) -> Result<f32> {
        same_shape("dot", a, b)?;
        self.reduced(Reduction::Dot, a, Some(b)).await
    }

    /// [`Gpu::dot`] for work whose passes may take long (a check inside a long factorisation):
    /// the reduction is recorded, then the GPU is waited for without holding the page
    /// ([`Gpu::settle`]), and only then is the scalar read, so the read waits for nothing. A
    /// read at once holds the page on WebGL2 until everything queued before it has run, new
    /// kernels compiled first.
    pub async fn dot_settled(&self, a: &Matrix, b: &Matrix) -> Result<f32> {
        same_shape("dot", a, b)?;
        if Gpu::is_tiled(a) {
            self.settle().await?;
            return self.reduced(Reduction::Dot, a, Some(b)).await;
        }
        let s = self.reduce(Reduction::Dot, a, Some(b))?;
        self.settle().await?;
        self.read_scalar(s).await
    }

    /// The sum of all elements, reduced on the GPU.
    pub async fn sum_all(&self, a: &Matrix) -> Result<f32> {
        self.reduced(Reduction::Sum, a, None).await
    }

    /// The largest |element| (NaN if any element is NaN), reduced on the GPU.
    pub async fn max_abs(&self, a: &Matrix) -> Result<f32> {
        self.reduced(Reduction::MaxAbs, a, None).await
    }

    /// The reduction of `a` (with `b` for a dot product) read back: on a grid, each tile's
    /// (with `b`'s tile at the same place), added up (or the largest taken) in float64.
    async fn reduced(&self, kind: Reduction, a: &Matrix, b: Option<&Matrix>) -> Result<f32> {
        if !Gpu::is_tiled(a) {
            let s = self.reduce(kind, a, b)?;
            return self.read_scalar(s).await;
        }
        let ab = self.blocks(a)?;
        let bb = b.map(|b| self.blocks(b)).transpose()?;
        let mut total: Option<f64> = None;
        for (k, t) in ab.tiles.iter().enumerate() {
            let s = self.reduce(kind, t, bb.as_ref().map(|bb| &bb.tiles[k]))?;
            let v = f64::from(self.read_scalar(s).await?);
            total = Some(match (total, kind) {
                (None, _) => v,
                (Some(m), Reduction::MaxAbs) => m.max(v),
                (Some(sum), _) => sum + v,
            });
        }
        Ok(total.unwrap_or(0.0) as f32)
    }

    /// Reduces every element of `a` (with `b` for a dot product) by the kernel that pays here.
    fn reduce(&self, kind: Reduction, a: &Matrix, b: Option<&Matrix>) -> Result<Matrix> {
        self.reduce_with(ReductionKernel::Auto, kind, a, b)
    }

    /// Reduces every element of `a` (with `b` for a dot product, of `a`'s shape) by `kernel`:
    /// passes down to one texel, then its four components. Returns a 1 x 1 matrix, left on
    /// the GPU (what the benchmarks time).
    pub fn reduce_with(
        &self,
        kernel: ReductionKernel,
        kind: Reduction,
        a: &Matrix,
        b: Option<&Matrix>,
    ) -> Result<Matrix> {
        if let Some(b) = b {
            same_shape("dot", a, b)?;
        }
        let caps = self.capabilities();
        let compute = match kernel {
            ReductionKernel::Auto => caps.compute && !caps.software,
            ReductionKernel::Passes => false,
            ReductionKernel::Compute => {
                caps.needs_compute("a compute reduction")?;
                true
            }
        };
        // Texels a pass takes in each direction.
        let fold = if compute { 64 } else { 4 };
        let pass = |kind: Reduction| {
            if compute {
                kind.compute_pass()
            } else {
                kind.pass()
            }
        };
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
            let w = current.width().div_ceil(fold);
            let h = current.height().div_ceil(fold);
            let out = self.layout(4 * h, w)?;
            let next = match &partial {
                None => self.run_kernel(pass(kind), &inputs, out)?,
                Some(p) => self.run_kernel(pass(later), &[p], out)?,
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
