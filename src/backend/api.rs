//! What every backend provides: RGBA32F textures, running a [`Program`] into one, reading back.

use std::future::Future;

use crate::error::Result;
use crate::kernels::Program;
use crate::scene::Scene;

/// Which backend runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    /// WebGPU through wgpu.
    WebGpu,
    /// WebGL2 through glow.
    WebGl2,
}

impl BackendKind {
    /// The name used in the API and on the page: "webgpu" or "webgl2".
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::WebGpu => "webgpu",
            BackendKind::WebGl2 => "webgl2",
        }
    }
}

/// Facts about the running backend, shown in the page's capability panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// The backend.
    pub backend: BackendKind,
    /// Adapter (WebGPU) or renderer (WebGL2) description.
    pub adapter: String,
    /// Largest texture side in texels: matrices up to `max * 4` rows and `max` columns.
    pub max_texture_size: u32,
    /// RGBA32F render targets one fragment pass may write (at least 1).
    pub max_render_targets: usize,
    /// Bytes of workgroup memory a compute kernel may declare (0 without a compute path).
    pub max_workgroup_storage: usize,
    /// Whether the adapter is a software renderer (a CPU, such as SwiftShader).
    pub software: bool,
    /// Whether compute kernels run (WebGPU: yes; WebGL2 has no compute shaders).
    pub compute: bool,
}

impl Capabilities {
    /// A clear `Unsupported` error where `what` needs compute kernels and they do not run here.
    pub fn needs_compute(&self, what: &str) -> Result<()> {
        if self.compute {
            Ok(())
        } else {
            Err(crate::error::Error::Unsupported(format!(
                "{what} is a compute shader, and WebGL2 has none: it needs WebGPU"
            )))
        }
    }
}

/// A GPU that stores matrices as RGBA32F textures and runs fragment-shader programs on them.
///
/// Textures free their GPU memory when dropped.
pub trait Backend: Sized + 'static {
    /// An RGBA32F texture that can be sampled, rendered into, written and read.
    type Texture;

    /// Facts for the capability panel.
    fn capabilities(&self) -> &Capabilities;

    /// A new texture of `width x height` texels, contents undefined.
    fn create_texture(&self, width: usize, height: usize) -> Result<Self::Texture>;

    /// Writes all texels (`4 * width * height` floats, RGBA interleaved, row after row).
    fn write_texture(
        &self,
        texture: &Self::Texture,
        width: usize,
        height: usize,
        texels: &[f32],
    ) -> Result<()>;

    /// Runs `program` with `inputs` (in the kernel's order) bound, rendering every texel of
    /// each of `outputs` (one per render target of the kernel, all of the program's shape).
    fn run(
        &self,
        program: &Program,
        inputs: &[&Self::Texture],
        outputs: &[&Self::Texture],
    ) -> Result<()>;

    /// Copies texels `(0..width, 0..height)` of `src` to `(x..x + width, 0..height)` of `dst`,
    /// in order with the runs around it.
    fn copy_columns(
        &self,
        src: &Self::Texture,
        dst: &Self::Texture,
        x: usize,
        width: usize,
        height: usize,
    ) -> Result<()>;

    /// Reads all texels back, in the layout of [`Backend::write_texture`].
    fn read_texture(
        &self,
        texture: &Self::Texture,
        width: usize,
        height: usize,
    ) -> impl Future<Output = Result<Vec<f32>>>;

    /// Resolves once all submitted GPU work has finished (for timing).
    fn finish(&self) -> impl Future<Output = Result<()>>;

    /// Draws `scene` (lit boxes and a ball, `shaders/scene.*`) into the backend's own canvas,
    /// [`Backend::canvas`], at that canvas's current size.
    fn draw(&self, scene: &Scene) -> Result<()>;

    /// The canvas [`Backend::draw`] renders into, for the page to show.
    fn canvas(&self) -> Result<web_sys::HtmlCanvasElement>;
}
