//! Iterative solvers on the GPU, built only from the [`Device`](crate::device::Device)
//! operations: conjugate gradients, Jacobi's method, projected Jacobi for the LCP
//! and for the wall's contact LCP with friction.

mod cg;
mod contact;
mod jacobi;
mod lcp;
mod solution;

pub use cg::{cg, CgOptions};
pub use contact::{contact_jacobi, gpu_frame, ContactSystem};
pub use jacobi::{jacobi, JacobiOptions};
pub use lcp::{complementarity, lcp_jacobi, lcp_jacobi_compute, LcpOptions};
pub(crate) use solution::{check_omega, check_vectors};
pub use solution::{Observer, Progress, Solution};
