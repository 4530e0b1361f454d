//! GPU backends: one file each, behind the small [`Backend`] trait.

mod api;
mod webgl2;
mod webgpu;

pub use api::{Backend, BackendKind, Capabilities, Instance, Scene, MAX_INSTANCES, SCENE_VERTICES};
pub use webgl2::WebGl2;
pub use webgpu::WebGpu;
