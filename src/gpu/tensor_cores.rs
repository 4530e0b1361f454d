//! The product of float16 matrices on cooperative matrices, an NVIDIA GPU's tensor cores
//! ([`ProductKernel::Tensor`](super::ProductKernel::Tensor)): natively only, where the device has them
//! ([`Capabilities::tensor`](crate::backend::Capabilities::tensor)). The wasm build leaves this
//! path out (`cfg!`: wgpu's cooperative matrices are native only).

use super::products::check_inner;
use super::Gpu;
use crate::backend::Format;
use crate::error::{Error, Result};
use crate::kernels;
use crate::matrix::Matrix;

impl Gpu {
    /// Whether [`ProductKernel::Auto`](super::ProductKernel::Auto) takes the tensor cores for `a * b`: both float16, on a
    /// device that runs the kernel.
    pub(super) fn takes_tensor_cores(&self, a: &Matrix, b: &Matrix) -> bool {
        self.tensor_cores() && both_float16(a, b)
    }

    /// Whether the device runs the tensor-core kernel: cooperative matrices
    /// (`Capabilities::tensor`) and the kernel's workgroup memory.
    fn tensor_cores(&self) -> bool {
        let caps = self.capabilities();
        !cfg!(target_arch = "wasm32")
            && caps.tensor
            && kernels::tensor_workgroup_bytes(kernels::TENSOR_CHUNK) <= caps.max_workgroup_storage
    }

    /// `a * b` of float16 matrices on cooperative matrices ([`ProductKernel::Tensor`](super::ProductKernel::Tensor)).
    pub(super) fn mul_tensor(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        check_inner(a, b)?;
        if !self.tensor_cores() {
            return Err(Error::Unsupported(
                "the tensor-core product needs cooperative matrices, which wgpu offers \
                 natively only (an NVIDIA GPU on Vulkan): this device has none"
                    .into(),
            ));
        }
        if !both_float16(a, b) {
            return Err(Error::Unsupported(format!(
                "the tensor-core product multiplies float16 matrices, and these are {} and {}: \
                 upload both as float16",
                a.format().name(),
                b.format().name()
            )));
        }
        let block = |a: &Matrix, b: &Matrix| self.mul_tensor(a, b);
        if let Some(c) = self.tile_product(a, b, (false, false), block)? {
            return Ok(c);
        }
        // No split of k, unlike the float32 kernel's: split in 2 to 4 slices it was as fast at
        // n = 1024 and 2048 and slower at 1536 (74 against 97 TFLOPS on an H100).
        let out = self.layout(a.rows(), b.cols())?;
        self.run_kernel(kernels::matmul_tensor(kernels::TENSOR_CHUNK), &[a, b], out)
    }
}

/// Whether both operands of a product are stored as float16.
fn both_float16(a: &Matrix, b: &Matrix) -> bool {
    a.format() == Format::F16 && b.format() == Format::F16
}
