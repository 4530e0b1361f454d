//! [`Budget`]: the thesis's controller, an optional budget of GPU memory. Past it, the pooled
//! textures go first; then the least recently used matrices move to CPU copies (one read-back
//! each, none where `get`/`set` made one) and come back by one upload on their next use.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::state::{OnGpu, Resident};
use crate::error::Result;
use crate::gpu::{Gpu, LocalFuture};
use crate::matrix::Matrix;
use crate::order::order_by;

/// What the budget needs of a GPU: its bytes, and read-backs of the matrices it moves out
/// ([`Gpu`]; a fake in the tests).
pub trait Device<T: OnGpu> {
    /// Bytes of the textures held by matrices.
    fn live_bytes(&self) -> usize;
    /// Bytes of the textures kept for reuse.
    fn pooled_bytes(&self) -> usize;
    /// Frees the textures kept for reuse.
    fn release_pooled(&self);
    /// Reads `texture` back, row-major.
    fn read<'a>(&'a self, texture: &'a T) -> LocalFuture<'a, Result<Vec<T::Elem>>>;
}

impl Device<Matrix> for Gpu {
    fn live_bytes(&self) -> usize {
        self.memory().live_bytes
    }

    fn pooled_bytes(&self) -> usize {
        self.memory().pooled_bytes
    }

    fn release_pooled(&self) {
        Gpu::release_pooled(self);
    }

    fn read<'a>(&'a self, texture: &'a Matrix) -> LocalFuture<'a, Result<Vec<f32>>> {
        Box::pin(Gpu::read(self, texture))
    }
}

/// A memory budget and what it has done.
#[derive(Debug)]
pub struct Budget {
    /// Texture bytes (live and pooled) allowed.
    bytes: usize,
    /// Matrices moved to the CPU so far.
    evictions: Cell<u64>,
    /// An eviction is under way (started after an operation).
    running: Cell<bool>,
}

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> Self {
        Budget {
            bytes,
            evictions: Cell::new(0),
            running: Cell::new(false),
        }
    }

    /// The texture bytes allowed.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Matrices moved to the CPU so far.
    pub fn evictions(&self) -> u64 {
        self.evictions.get()
    }

    /// After an operation: over the budget, the pool is freed at once. Whether the live
    /// matrices alone are still over it with no eviction under way: then the caller starts
    /// [`Budget::evict`] (it needs read-backs, so it goes on after the operation returns).
    pub fn over<T: OnGpu>(&self, device: &impl Device<T>) -> bool {
        if device.live_bytes() + device.pooled_bytes() <= self.bytes {
            return false;
        }
        device.release_pooled();
        device.live_bytes() > self.bytes && !self.running.get()
    }

    /// Moves the least recently used of `matrices` that are on the GPU to the CPU, one at a
    /// time, until the live bytes fit (each at most once: one still held by a running
    /// operation frees nothing).
    pub async fn evict<T: OnGpu, C>(
        &self,
        device: &impl Device<T>,
        matrices: Vec<Rc<RefCell<Resident<T, C>>>>,
    ) -> Result<()> {
        self.running.set(true);
        let result = self.evict_each(device, matrices).await;
        self.running.set(false);
        result
    }

    async fn evict_each<T: OnGpu, C>(
        &self,
        device: &impl Device<T>,
        matrices: Vec<Rc<RefCell<Resident<T, C>>>>,
    ) -> Result<()> {
        let evictable: Vec<_> = matrices
            .into_iter()
            .filter(|m| m.borrow().evictable().is_some())
            .collect();
        // Most recently used first: the least recent is popped first.
        let mut candidates: Vec<_> =
            order_by(evictable.len(), |k| !evictable[k].borrow().last_use())
                .into_iter()
                .map(|k| evictable[k].clone())
                .collect();
        while device.live_bytes() > self.bytes {
            let Some(matrix) = candidates.pop() else {
                break;
            };
            let Some((texture, version, read)) = matrix.borrow().evictable() else {
                continue;
            };
            let values = if read {
                Some(device.read(&texture).await?)
            } else {
                None
            };
            drop(texture);
            if matrix.borrow_mut().evict(version, values) {
                self.evictions.set(self.evictions.get() + 1);
                device.release_pooled();
            }
        }
        Ok(())
    }
}
