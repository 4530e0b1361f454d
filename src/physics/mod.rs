//! The collapsing wall (the ShaderX2 article, section 5, Figure 4): rigid cubes on a ground plane whose
//! contacts are solved as a linear complementarity problem every frame.
//!
//! Units: metres, seconds, kilograms; gravity points along -y and the ground is the plane y = 0.
//! The CPU finds contacts and assembles the LCP in float64 ([`ContactLcp`]); the GPU solves it
//! by accelerated projected Jacobi, or the seed's projected Jacobi
//! ([`crate::solver::solve_contacts`], conducted by [`gpu_frame`]); the CPU applies the impulses
//! and integrates ([`World`]). A frame steps a copy of the world; [`LiveWorld`] hands its result
//! back with the throws, pushes and settings made while it ran.

mod blocks;
mod body;
mod contact;
mod factors;
mod frame;
mod gpu_contacts;
mod jacobian;
mod lcp;
mod live;
mod soft;
mod view;
mod wall;
mod world;

pub use blocks::{Block, Blocks};
pub use body::{Body, Shape};
pub use contact::{candidates, find_contacts, Candidate, Contact, FACE_TIE};
pub use frame::{gpu_frame, gpu_frame_timed, gpu_solve, FrameTimes};
pub use gpu_contacts::{gpu_contacts, NarrowPhase, GPU_NARROW_PHASE_FROM};
pub use jacobian::{Jacobian, Run, Side};
pub use lcp::{ContactLcp, Mode};
pub use live::{Frame, Input, LiveWorld};
pub use soft::{
    soft_numbers, SoftImpulses, CONTACT_DAMPING, CONTACT_HERTZ, SOFT_SUBSTEPS, SOFT_SWEEPS,
};
pub use view::Camera;
pub use wall::{wall, walls_extent, WallSpec, BALL, WALLS_DEEP, WALL_SPACING};
pub use world::{
    Inputs, Settings, Stats, World, GAUSS_SEIDEL_ITERATIONS, MAX_ITERATIONS, MIN_OMEGA,
    NESTEROV_ITERATIONS,
};

#[cfg(test)]
mod tests;
