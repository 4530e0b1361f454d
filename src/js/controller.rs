//! The thesis's controller: an optional GPU memory budget (`Gpgpu.create(backend,
//! { memoryBudget })`), [`crate::gpu::residency::Budget`]. Past it, the pooled textures go
//! first; then the least recently used matrices move to CPU copies (one read-back each) and
//! come back by one upload on their next use, transparently; `memory().evictions` counts them.
//! Here the budget is only started: at once after an operation, or awaited by `finish()`.

use std::future::Future;

use super::gpgpu::Gpgpu;
use crate::error::Error;

impl Gpgpu {
    /// After an operation: over the budget, the pool is freed at once; if the live matrices
    /// alone are still over it, moving the least recently used ones to the CPU starts (it needs
    /// read-backs, so it goes on after this call returns; `finish()` waits for it).
    pub(super) fn enforce_budget(&self) {
        let Some(budget) = self.budget.clone() else {
            return;
        };
        if budget.over(&*self.gpu) {
            let (gpu, matrices) = (self.gpu.clone(), self.registry.float32());
            wasm_bindgen_futures::spawn_local(async move {
                let _ = budget.evict(&*gpu, matrices).await;
            });
        }
    }

    /// Moves least recently used matrices to the CPU until the budget holds (for `finish()`).
    pub(super) fn settle_budget(&self) -> impl Future<Output = Result<(), Error>> + 'static {
        let budget = self.budget.clone();
        let (gpu, registry) = (self.gpu.clone(), self.registry.clone());
        async move {
            match budget {
                Some(budget) => budget.evict(&*gpu, registry.float32()).await,
                None => Ok(()),
            }
        }
    }
}
