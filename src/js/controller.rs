//! Seed 004's controller: an optional GPU memory budget (`Gpgpu.create(backend,
//! { memoryBudget })`). Past it, the pooled textures go first; then the least recently used
//! matrices move to CPU copies (one read-back each) and come back by one upload on their next
//! use, transparently; `memory().evictions` counts them.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::{Rc, Weak};

use super::gpgpu::Gpgpu;
use super::gpu_matrix::{Registry, Slot};
use crate::error::Error;
use crate::gpu::Gpu;

/// A memory budget and what it has done.
#[derive(Debug)]
pub(super) struct Budget {
    /// Texture bytes (live and pooled) allowed.
    pub(super) bytes: usize,
    /// Matrices moved to the CPU so far.
    pub(super) evictions: Cell<u64>,
    /// An eviction is under way (started after an operation).
    running: Cell<bool>,
}

impl Budget {
    /// A budget of `bytes`.
    pub(super) fn new(bytes: usize) -> Self {
        Budget {
            bytes,
            evictions: Cell::new(0),
            running: Cell::new(false),
        }
    }
}

impl Gpgpu {
    /// After an operation: over the budget, the pool is freed at once; if the live matrices
    /// alone are still over it, moving the least recently used ones to the CPU starts (it needs
    /// read-backs, so it goes on after this call returns; `finish()` waits for it).
    pub(super) fn enforce_budget(&self) {
        let Some(budget) = self.budget.clone() else {
            return;
        };
        let m = self.gpu.memory();
        if m.live_bytes + m.pooled_bytes <= budget.bytes {
            return;
        }
        self.gpu.release_pooled();
        if self.gpu.memory().live_bytes > budget.bytes && !budget.running.get() {
            let task = evict(self.gpu.clone(), self.registry.clone(), budget);
            wasm_bindgen_futures::spawn_local(async move {
                let _ = task.await;
            });
        }
    }

    /// Moves least recently used matrices to the CPU until the budget holds (for `finish()`).
    pub(super) fn settle_budget(&self) -> impl Future<Output = Result<(), Error>> + 'static {
        let task = (self.budget.clone())
            .map(|budget| evict(self.gpu.clone(), self.registry.clone(), budget));
        async move {
            match task {
                Some(task) => task.await,
                None => Ok(()),
            }
        }
    }
}

/// Evicts the least recently used matrices that hold a texture, one at a time, until the live
/// bytes fit `budget` (at most once per matrix: one still held by a running operation frees
/// nothing).
async fn evict(gpu: Rc<Gpu>, registry: Registry, budget: Rc<Budget>) -> Result<(), Error> {
    budget.running.set(true);
    let result = async {
        let mut candidates: Vec<Rc<RefCell<Slot>>> = registry
            .borrow()
            .values()
            .filter_map(Weak::upgrade)
            .filter(|s| s.borrow().gpu.is_some())
            .collect();
        candidates.sort_by_key(|s| std::cmp::Reverse(s.borrow().last_use));
        while gpu.memory().live_bytes > budget.bytes {
            let Some(slot) = candidates.pop() else {
                break;
            };
            let (matrix, version, copied) = {
                let s = slot.borrow();
                match &s.gpu {
                    Some(m) => (m.clone(), s.version, s.cpu.is_some()),
                    None => continue,
                }
            };
            let values = if copied {
                None
            } else {
                Some(gpu.read(&matrix).await?)
            };
            drop(matrix);
            let mut s = slot.borrow_mut();
            if s.version != version || s.gpu.is_none() {
                continue;
            }
            if let Some(values) = values {
                s.cpu = Some(values);
            }
            s.gpu = None;
            budget.evictions.set(budget.evictions.get() + 1);
            drop(s);
            gpu.release_pooled();
        }
        Ok(())
    }
    .await;
    budget.running.set(false);
    result
}
