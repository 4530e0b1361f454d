//! Kernels of one's own on this GPU ([`crate::kernels::custom`]): checked against what this
//! backend runs, compiled first so that one that does not compile is a clear error and the GPU
//! goes on as before, then run as any kernel.

use super::Gpu;
use crate::backend::BackendKind;
use crate::error::{Error, Result};
use crate::kernels::{Kernel, Program, MAX_PARAMS};
use crate::matrix::Matrix;

impl Gpu {
    /// Compiles `kernel` and builds its pipeline now (see
    /// [`crate::backend::Backend::compile`]): a kernel that does not compile is an
    /// [`Error::Compile`] with the compiler's messages, lines counted in its body.
    pub async fn compile(&self, kernel: &Kernel) -> Result<()> {
        self.alive()?;
        let backend = self.backend();
        backend.compile(kernel).await
    }

    /// Runs `kernel`, one of a person's own, on `inputs` (`a`, `b`, ... in order) into a new
    /// `rows x cols` matrix, with `params` (`param(i)`, at most [`crate::kernels::MAX_PARAMS`]).
    /// Refuses a kernel without a body in this backend's language, a compute kernel on WebGL2
    /// and inputs of another count than the kernel's, then compiles it ([`Gpu::compile`]) and
    /// runs it.
    pub async fn run_own(
        &self,
        kernel: Kernel,
        inputs: &[&Matrix],
        (rows, cols): (usize, usize),
        params: &[f32],
    ) -> Result<Matrix> {
        let output = self.layout(rows, cols)?;
        if params.len() > MAX_PARAMS {
            return Err(Error::Argument(format!(
                "a kernel takes at most {MAX_PARAMS} params, got {}",
                params.len()
            )));
        }
        if inputs.len() != kernel.inputs.len() {
            return Err(Error::Argument(format!(
                "the kernel reads {} inputs, got {}",
                kernel.inputs.len(),
                inputs.len()
            )));
        }
        let caps = self.capabilities();
        if kernel.compute.is_some() {
            caps.needs_compute("a compute kernel of your own")?;
        }
        let (body, what) = match caps.backend {
            BackendKind::WebGpu => (&kernel.wgsl, "WebGPU: give the kernel's WGSL body (wgsl)"),
            BackendKind::WebGl2 => (
                &kernel.glsl,
                "WebGL2: give the kernel's GLSL ES 3.00 body (glsl)",
            ),
        };
        if body.trim().is_empty() {
            return Err(Error::Argument(format!("this GPU runs {what}")));
        }
        self.compile(&kernel).await?;
        let layouts = inputs.iter().map(|m| m.layout).collect();
        self.run(
            Program::new(kernel, layouts, output).with_params(params),
            inputs,
        )
    }
}
