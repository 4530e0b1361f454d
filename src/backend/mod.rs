//! GPU backends: one file each, behind the small [`Backend`] trait.

mod api;
mod webgl2;
mod webgpu;

pub use api::{
    Backend, BackendKind, Capabilities, Draw, DynBackend, DynTexture, LocalFuture, Values,
};
pub use webgl2::WebGl2;
pub use webgpu::WebGpu;

/// Whether an adapter or renderer description names a software renderer.
pub(crate) fn is_software(description: &str) -> bool {
    let d = description.to_lowercase();
    ["swiftshader", "llvmpipe", "lavapipe", "software"]
        .iter()
        .any(|s| d.contains(s))
}
