//! The SIMD linear-expression optimizer of the SIMD-optimization paper, from the paper "SIMD code optimization of
//! linear expressions for programmable graphics hardware" (Bajaj, Ihm, Min, Oh, Eurographics
//! 2004; spec `seed-001-simd-linear-expressions.md`): an expression
//! `y = A x + b` ([`LinearExpr`]), the paper's instruction-count cost model ([`cost`](
//! LinearExpr::cost), §1.2), the abstract four-wide program that cost counts
//! ([`instructions`](LinearExpr::instructions)), the search for a cheaper equivalent
//! expression by simulated annealing ([`optimize`](LinearExpr::optimize), §1.3), and the
//! paper's example matrices ([`examples`]), all pure Rust; and the expression on the GPU
//! ([`apply_gpu`](LinearExpr::apply_gpu)): a kernel generated from [`SimdProgram`] with the
//! coefficients baked in ([`crate::kernels::linear()`]), run through [`crate::gpu::Gpu`] only.

mod anneal;
mod cost;
pub mod examples;
mod expr;
mod gpu;
#[cfg(test)]
mod kernel_tests;
pub mod measures;
mod program;
#[cfg(test)]
mod tests;

pub use crate::kernels::simd::{Instruction, Op, Operand, Reg, SimdProgram};
pub use anneal::{candidates, stride_permutation, Optimized, Schedule, RESTARTS};
pub use cost::{summation_cost, BlockCost, CostModel, Objective};
pub use expr::{check_permutation, LinearExpr, MAX_SIZE};
