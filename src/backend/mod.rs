//! GPU backends: one folder each, behind the small [`Backend`] trait.

mod api;
mod webgl2;
mod webgpu;

pub(crate) use api::{halves, is_software};
pub use api::{
    Backend, BackendKind, Capabilities, Draw, DynBackend, DynTexture, Format, LocalFuture, Values,
};
pub use webgl2::WebGl2;
pub use webgpu::{GpuSource, WebGpu};
