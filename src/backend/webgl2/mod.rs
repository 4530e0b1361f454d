//! The WebGL2 backend, through glow: [`WebGl2`] in `backend.rs`, the wall's renderer in
//! `scene.rs`, and what both use to link shaders and check errors in `gl.rs`.

mod backend;
mod gl;
mod scene;

pub use backend::WebGl2;
