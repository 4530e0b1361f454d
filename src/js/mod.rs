//! The JavaScript API (wasm-bindgen): one file per exported class, and the TypeScript types
//! the generated `texla.d.ts` carries. Everything here turns JavaScript values into Rust ones
//! (`options.rs`), calls the [`crate::gpu`], [`crate::solver`], [`crate::physics`] and
//! [`crate::simd_expr`] and [`crate::stencil`] layers, and turns every [`crate::error::Error`] into a thrown `Error` or a
//! rejected promise.

mod controller;
mod copies;
mod float_float;
mod gpgpu;
mod gpu_matrix;
mod nmf;
mod options;
mod own_kernel;
mod products;
mod refine;
mod scope;
mod simd_expr;
mod solve;
mod sources;
mod stencil;
mod types;
mod wall;

pub use gpgpu::Gpgpu;
pub use gpu_matrix::GpuMatrix;
pub use simd_expr::{LinearExpression, DEFAULT_MOVES, MAX_MOVES};
pub use stencil::{PoissonSolver, WaveSim, MAX_ITERATIONS};
pub use wall::Wall;
