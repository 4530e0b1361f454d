//! # texla: GPGPU linear algebra in a browser tab
//!
//! Matrices live on the GPU as RGBA32F textures, four rows of one column per texel
//! ([`layout`]), and are computed on with fragment shaders ([`kernels`], `shaders/`), on WebGPU
//! (wgpu) or WebGL2 (glow) ([`backend`]). Everything a solver or the wall needs goes through the
//! one [`gpu::Gpu`] type; nothing above [`backend`] touches wgpu or glow. The JavaScript API is
//! in [`js`]. [`simd_expr`] (the SIMD-optimization paper) counts and cuts the four-wide instructions that evaluate
//! `y = A x + b`, in pure Rust; [`stencil`] builds its Poisson solver and wave on them.
#![warn(missing_docs)]

pub mod backend;
pub mod error;
mod event_loop;
pub mod global;
pub mod gpu;
mod hash;
#[cfg(feature = "native")]
pub mod instructions;
pub mod js;
pub mod kernels;
pub mod layout;
pub mod matrix;
pub mod nmf;
mod order;
pub mod physics;
pub mod problems;
pub mod reference;
pub mod scene;
pub mod simd_expr;
pub mod solver;
pub mod stencil;

pub use js::{Gpgpu, GpuMatrix, LinearExpression, Wall};
