//! The operations every GPU offers, whatever its backend, and the choice of backend.

use std::future::Future;
use std::pin::Pin;

use crate::backend::{BackendKind, Capabilities, WebGl2, WebGpu};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernels::Expr;
use crate::matrix::Matrix;
use crate::pool::MemoryStats;

/// A future of this single-threaded crate.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// A GPU that stores matrices as textures and computes with fragment shaders.
///
/// Implemented once, generically, by [`Gpu`] for every backend. Operations only record GPU work
/// and return at once; nothing is read back unless [`Device::read`] (or a scalar result such as
/// [`Device::dot`]) is awaited. Every result is a new matrix; `_mut` operations replace the
/// matrix they are given (other handles to the old value keep it).
pub trait Device {
    /// Facts about the backend and adapter.
    fn capabilities(&self) -> &Capabilities;

    /// Runs `program` (a kernel of [`crate::kernel`] on concrete shapes) with `inputs` bound, into
    /// a new matrix of shape `program.output`: how a domain runs a kernel of its own.
    fn run(&self, program: crate::kernels::Program, inputs: &[&Matrix]) -> Result<Matrix>;

    /// Copies row-major `data` (`rows * cols` values) into a new GPU matrix.
    fn upload(&self, data: &[f32], rows: usize, cols: usize) -> Result<Matrix>;

    /// `a * b`, a new `a.rows() x b.cols()` matrix.
    fn mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;

    /// `a * b` on the compute path (WebGPU only): workgroup-memory tiling, 4 output texels per
    /// thread. On WebGL2 a clear `Unsupported` error.
    fn mul_compute(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;

    /// `a * b` with the fast fragment kernel: several output texels per fragment, one per
    /// render target (up to [`crate::kernels::FAST_TARGETS`], as many as the backend allows), A's
    /// texels fetched once for all of them; then the slabs are copied into one matrix.
    fn mul_fast(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;

    /// `m * m` for a square `m`.
    fn square(&self, m: &Matrix) -> Result<Matrix>;

    /// `m * m` for a square `m`, with the fast fragment kernel of [`Device::mul_fast`].
    fn square_fast(&self, m: &Matrix) -> Result<Matrix>;

    /// `a^T * b`, without building `a^T`.
    fn tr_mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;

    /// `a * b^T`, without building `b^T`.
    fn mul_tr(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;

    /// `a^T`.
    fn transpose(&self, a: &Matrix) -> Result<Matrix>;

    /// `a * x` for a column vector `x`, blocked (seed 003): partial sums over column blocks in
    /// many fragments, then a reduction pass.
    fn mul_vec(&self, a: &Matrix, x: &Matrix) -> Result<Matrix>;

    /// `a * x`, one fragment per four output rows (the plain product), for comparison.
    fn mul_vec_naive(&self, a: &Matrix, x: &Matrix) -> Result<Matrix>;

    /// `a * x` on the compute path (WebGPU only): one dispatch, 32 rows per workgroup, partial
    /// sums added in workgroup memory. On WebGL2 a clear `Unsupported` error.
    fn mul_vec_compute(&self, a: &Matrix, x: &Matrix) -> Result<Matrix>;

    /// The element-wise expression `expr` over `inputs` (all of one shape), in one pass.
    fn map(&self, expr: &Expr, inputs: &[&Matrix]) -> Result<Matrix>;

    /// Two element-wise expressions over the same inputs, computed in ONE pass that writes two
    /// outputs (two render targets): fused updates such as CG's x and r.
    fn map2(&self, first: &Expr, second: &Expr, inputs: &[&Matrix]) -> Result<(Matrix, Matrix)>;

    /// `this = expr(this, others...)`: input `a` of the expression is `this`.
    fn map_mut(&self, expr: &Expr, this: &mut Matrix, others: &[&Matrix]) -> Result<()>;

    /// A `rows x cols` matrix of `value` (`fill(r, c, 0.0)` is the zero matrix).
    fn fill(&self, rows: usize, cols: usize, value: f32) -> Result<Matrix>;

    /// The `rows x cols` identity: ones where row == column.
    fn identity(&self, rows: usize, cols: usize) -> Result<Matrix>;

    /// `sum a_ij b_ij` of two matrices of one shape (`a^T b` for vectors), reduced on the GPU;
    /// only the scalar is read back.
    fn dot<'a>(&'a self, a: &'a Matrix, b: &'a Matrix) -> LocalFuture<'a, Result<f32>>;

    /// The sum of all elements, reduced on the GPU.
    fn sum_all<'a>(&'a self, a: &'a Matrix) -> LocalFuture<'a, Result<f32>>;

    /// The largest |element| (NaN if any element is NaN), reduced on the GPU.
    fn max_abs<'a>(&'a self, a: &'a Matrix) -> LocalFuture<'a, Result<f32>>;

    /// The diagonal of a square matrix as a column vector.
    fn diagonal(&self, a: &Matrix) -> Result<Matrix>;

    /// Passes run and read-backs made since the device opened.
    fn counts(&self) -> Counts;

    /// Reads `m` back: exactly `rows * cols` values, row-major.
    fn read<'a>(&'a self, m: &'a Matrix) -> LocalFuture<'a, Result<Vec<f32>>>;

    /// Resolves once all GPU work submitted so far has finished.
    fn finish(&self) -> LocalFuture<'_, Result<()>>;

    /// Live and pooled textures, in counts and bytes, and the peak bytes held at once.
    fn memory(&self) -> MemoryStats;

    /// Frees the pooled (unused) textures now.
    fn release_pooled(&self);

    /// Draws a scene of lit boxes into [`Device::scene_canvas`] (the wall's view).
    fn draw_scene(&self, scene: &crate::scene::Scene) -> Result<()>;

    /// The canvas [`Device::draw_scene`] draws into, for the page to place and size.
    fn scene_canvas(&self) -> Result<web_sys::HtmlCanvasElement>;

    /// Starts a new peak (see [`MemoryStats::peak_bytes`]) from the bytes held now.
    fn reset_peak(&self);

    /// Full source (WGSL or GLSL, as the backend runs it) of the last kernel that ran.
    fn last_shader(&self) -> Option<String>;
}

/// GPU passes run and read-backs made, to show what an algorithm costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Fragment-shader passes (one render into one texture each).
    pub passes: u64,
    /// Read-backs of matrix data (scalars included) to the CPU.
    pub readbacks: u64,
}

impl std::ops::Sub for Counts {
    type Output = Counts;

    fn sub(self, earlier: Counts) -> Counts {
        Counts {
            passes: self.passes - earlier.passes,
            readbacks: self.readbacks - earlier.readbacks,
        }
    }
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
