//! The WebGPU backend, through wgpu: [`WebGpu`] in `backend.rs`, on the device, queue and
//! recorded work of `context.rs`, with its pipelines (`pipelines.rs`), its upload and read-back
//! (`transfer.rs`), its matrix texture (`texture.rs`) and the wall's renderer (`scene.rs`).

mod backend;
mod context;
mod pipelines;
mod scene;
mod texture;
mod transfer;

pub use backend::WebGpu;
