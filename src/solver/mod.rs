//! Iterative solvers on the GPU, built only from the [`Device`](crate::device::Device)
//! operations: conjugate gradients, Jacobi's method, projected Jacobi for the LCP.

mod cg;
mod jacobi;
mod lcp;
mod solution;

pub use cg::{cg, CgOptions};
pub use jacobi::{jacobi, JacobiOptions};
pub use lcp::{complementarity, lcp_jacobi, lcp_jacobi_compute, LcpOptions};
pub use solution::{Observer, Progress, Solution};
