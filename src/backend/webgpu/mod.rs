//! The WebGPU backend, through wgpu: [`WebGpu`] in `backend.rs`, on the device, queue and
//! recorded work of `context.rs`, with its pipelines (`pipelines.rs`), its upload and read-back
//! (`transfer.rs`), its matrix texture (`texture.rs`), the wall's renderer (`scene.rs`) and where
//! its GPU comes from (`source.rs`).

mod backend;
mod context;
mod pipelines;
mod scene;
mod source;
mod texture;
mod transfer;

pub use backend::WebGpu;
pub use source::GpuSource;
