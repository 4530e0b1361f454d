//! [`Gpu`]: texla's one GPU type. It holds a backend behind the small [`DynBackend`](crate::backend::DynBackend) seam, the
//! texture pool, and the counts; every operation validates its inputs, then hands a
//! [`Program`](crate::kernels::Program) to the backend. Nothing here names an algorithm or the page.
//!
//! The operations are split by concern, as nalgebra splits a type's: [`products`] (`mul`,
//! `mul_with` a [`ProductKernel`], `mul_transposed`, `square`, `mul_vec`, ...),
//! [`elementwise`] (`map`, `map2`, `map_mut`, and the seed's operation set in [`ops`]),
//! [`reductions`] (`dot`, `sum_all`, `max_abs`), [`construction`] (`upload`, `upload_as`
//! float16, `fill`, `identity`, `diagonal`) and [`float_float`] (matrices of hi + lo float32
//! pairs, about 48 bits: [`DdMatrix`], through the view [`Gpu::float_float`]). Every
//! operation only records GPU work and returns at once; nothing is read back unless [`Gpu::read`]
//! (or a reduction) is awaited. Every result is a new matrix; `_mut` operations replace the
//! matrix they are given (other handles to the old value keep it).

mod base;
pub mod construction;
mod custom;
pub mod elementwise;
pub mod float_float;
mod pool;
pub mod probe;
pub mod products;
pub mod reductions;
pub mod residency;
mod revival;
mod tensor_cores;
mod tiles;

pub use crate::backend::{Format, LocalFuture};
#[cfg(not(target_arch = "wasm32"))]
pub use crate::event_loop::block_on;
pub use base::{Choice, Counts, Gpu, Opened};
pub use construction::{beyond_float16, float16};
pub use elementwise::ops;
pub use float_float::{DdMatrix, FloatFloat};
pub use pool::{MemoryStats, MAX_POOLED_BYTES};
pub use probe::Precision;
pub use products::{MatVecKernel, ProductKernel, Transpose, MATVEC_BLOCK};
pub use reductions::ReductionKernel;
pub use tiles::MAX_ELEMENTS;
