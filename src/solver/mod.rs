//! Iterative solvers on the GPU, built only from the [`Gpu`](crate::gpu::Gpu)
//! operations: conjugate gradients (float32, and float-float in [`cg_float_float`]), Jacobi's
//! method, iterative refinement (float-float residuals, float32 corrections: [`refine`]),
//! projected Jacobi for the LCP and for the wall's contact LCP with friction.

mod cg;
mod cg_float_float;
mod contact;
mod contact_colours;
mod contact_factors;
mod contact_soft;
mod contact_wrap;
mod jacobi;
mod lcp;
mod lcp_compute;
mod refine;
mod solution;

pub use cg::{cg, cg_poisson_2d, fused_update, CgOptions};
pub use cg_float_float::cg_float_float;
pub use contact::{
    factors_for_solve, solve_contacts, ContactLayout, ContactMethod, ContactPath, ContactSolve,
    ContactSystem,
};
pub use contact_colours::contact_colours;
pub use contact_factors::{
    island_groups, ContactFactors, FactorSystem, Group, IslandGroups, JACOBIAN_TEXELS,
};
pub use contact_soft::{solve_soft, solve_soft_on, SoftStep, MAX_SUBSTEPS};
pub use contact_wrap::ContactWrap;
pub use jacobi::{jacobi, JacobiOptions};
pub use lcp::{complementarity, lcp_jacobi, lcp_jacobi_compute, LcpOptions, JACOBI_STEP};
pub use lcp_compute::{lcp_jacobi_blocks, LCP_DEFAULT_WORKGROUPS, MAX_KERNEL_ITERATIONS};
pub use refine::{refine, InnerSolver, RefineOptions, Refinement};
pub(crate) use solution::{check_omega, check_vectors};
pub use solution::{Observer, Progress, Solution};
