//! Residency: where each matrix's values are, and how they move (as TF.js's `texData` holds a
//! tensor's CPU values and its texture, and the backend moves between them).
//!
//! [`Residency`] is the one enum: on the GPU (with or without copies on the CPU, which then
//! hold the same values), on the GPU but behind a CPU copy that `set` changed (`Stale`), on the
//! CPU only (moved out by the memory budget, or left by a lost GPU), freed, or lost. A
//! [`Resident`] is one matrix's record: its residency, shape, version (bumped by every change,
//! so that a read-back begun before is not kept as a copy) and last use; its methods are the
//! moves: the texture for a GPU use (uploading a copy where needed), keeping a copy of what was
//! uploaded or read back, `set`, an in-place change, `free`, and the restore after a loss.
//!
//! A matrix has up to two copies on the CPU ([`Copies`]): `values`, in this program's memory,
//! which `get` and `set` work on and the budget moves a matrix out to; and `kept`, a copy in
//! host memory of what was uploaded or last read back, kept where `keepCopies` asks for it
//! (what brings the matrix back after a lost GPU). The kept copy's type is a parameter, `C`:
//! the JavaScript face keeps the page's own `Float32Array` (the one uploaded from or read
//! into, with a sample to check it is unchanged) or a private copy (`js/copies.rs`), and
//! `Float64Array`s for float-float matrices; natively and in the tests it is a `Vec`. After a
//! loss, a new GPU's [`generation`](crate::gpu::Gpu::generation) tells each matrix on its next
//! use that its texture went ([`Resident::catch_up`]). What the GPU holds is a parameter too ([`OnGpu`]: a [`Matrix`], a
//! [`DdMatrix`] pair, or a fake), and every move that needs the GPU takes it as an argument (an
//! upload closure, a [`Device`] for the budget's read-backs), so that nothing here needs a GPU
//! or JavaScript, and the tests run natively.
//!
//! [`Budget`] moves the least recently used float32 matrices out; [`Spares`] recycles the large
//! kept copies that freed or changed matrices let go (any [`HostCopy`]); [`Registry`] holds a
//! GPU's matrices of both kinds by id, for the page, the budget and the restore.
//!
//! [`Matrix`]: crate::matrix::Matrix
//! [`DdMatrix`]: crate::gpu::DdMatrix

mod budget;
mod registry;
mod spares;
mod state;
#[cfg(test)]
mod tests;

pub use budget::{Budget, Device};
pub use registry::{Handle, Registry, Shared};
pub use spares::{HostCopy, Spares, SPARE_BYTES, SPARE_FROM};
pub use state::{Copies, OnGpu, Residency, Resident, Source};
