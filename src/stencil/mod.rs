//! The SIMD-optimization paper's stencil solvers (spec §1.5), built on the SIMD linear-expression optimizer of
//! [`crate::simd_expr`]: the enhanced block Jacobi (EBJ) Poisson solver, in float64
//! ([`Ebj`], [`PoissonGrid`], Gauss-Seidel for comparison) and on the GPU ([`EbjState`], one
//! [`Pass`] per slab), and the 512 x 512 wave ([`Wave`]), each pass a kernel made by
//! [`crate::kernels::line_stencil`] and run through [`crate::gpu::Gpu`] only.

mod poisson;
mod poisson_gpu;
#[cfg(test)]
mod tests;
mod wave;

pub use poisson::{iterations_to, Ebj, PoissonGrid, MAX_LINE, MAX_UNKNOWNS};
pub use poisson_gpu::{EbjState, Pass};
pub use wave::{Wave, WavePass, WaveState, BLOCK, MAX_SIDE};
