//! The operations every GPU offers, whatever its backend, and the choice of backend.

use std::future::Future;
use std::pin::Pin;

use crate::backend::{BackendKind, Capabilities, WebGl2, WebGpu};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::matrix::Matrix;

/// A future of this single-threaded crate.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// A GPU that stores matrices as textures and computes with fragment shaders.
///
/// Implemented once, generically, by [`Gpu`] for every backend. Operations only record GPU work;
/// nothing is read back unless [`Device::read`] is called.
pub trait Device {
    /// Facts about the backend and adapter.
    fn capabilities(&self) -> &Capabilities;

    /// Copies row-major `data` (`rows * cols` values) into a new GPU matrix.
    fn upload(&self, data: &[f32], rows: usize, cols: usize) -> Result<Matrix>;

    /// `a * b`, a new `a.rows() x b.cols()` matrix.
    fn mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;

    /// `m * m` for a square `m`.
    fn square(&self, m: &Matrix) -> Result<Matrix>;

    /// Reads `m` back: exactly `rows * cols` values, row-major.
    fn read<'a>(&'a self, m: &'a Matrix) -> LocalFuture<'a, Result<Vec<f32>>>;

    /// Resolves once all GPU work submitted so far has finished.
    fn finish(&self) -> LocalFuture<'_, Result<()>>;
}

/// Which backend to open: "auto" (WebGPU, else WebGL2), "webgpu" or "webgl2".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// WebGPU if it works, else WebGL2.
    Auto,
    /// WebGPU or nothing.
    Force(BackendKind),
}

impl std::str::FromStr for Choice {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "" | "auto" => Ok(Choice::Auto),
            "webgpu" => Ok(Choice::Force(BackendKind::WebGpu)),
            "webgl2" => Ok(Choice::Force(BackendKind::WebGl2)),
            other => Err(Error::UnknownBackend(other.into())),
        }
    }
}

/// An open device and why its backend was chosen over the other.
pub struct Opened {
    /// The device.
    pub device: Box<dyn Device>,
    /// Why this backend runs and the other one does not, in a sentence for the page.
    pub reason: String,
}

/// Opens a device as `choice` asks; when nothing works the error names what is missing.
pub async fn open(choice: Choice) -> Result<Opened> {
    let webgpu = || async {
        WebGpu::create()
            .await
            .map(|b| Box::new(Gpu::new(b)) as Box<dyn Device>)
    };
    let webgl2 = || WebGl2::create().map(|b| Box::new(Gpu::new(b)) as Box<dyn Device>);
    let opened = |device, reason: String| Ok(Opened { device, reason });
    match choice {
        Choice::Force(BackendKind::WebGpu) => opened(
            webgpu().await?,
            "WebGPU was asked for by name, so WebGL2 was not tried".into(),
        ),
        Choice::Force(BackendKind::WebGl2) => opened(
            webgl2()?,
            "WebGL2 was asked for by name, so WebGPU was not tried".into(),
        ),
        Choice::Auto => match webgpu().await {
            Ok(device) => opened(
                device,
                "WebGPU works here, so the WebGL2 fallback was not needed".into(),
            ),
            Err(gpu_error) => match webgl2() {
                Ok(device) => opened(device, format!("fell back to WebGL2 because {gpu_error}")),
                Err(gl_error) => Err(Error::BackendUnavailable(format!(
                    "no GPU backend works here. {gpu_error}. {gl_error}."
                ))),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_parse() {
        assert_eq!("auto".parse(), Ok(Choice::Auto));
        assert_eq!("".parse(), Ok(Choice::Auto));
        assert_eq!("webgl2".parse(), Ok(Choice::Force(BackendKind::WebGl2)));
        assert_eq!("webgpu".parse(), Ok(Choice::Force(BackendKind::WebGpu)));
        let err = "vulkan".parse::<Choice>().unwrap_err();
        assert!(err.to_string().contains("\"vulkan\""), "{err}");
    }
}
