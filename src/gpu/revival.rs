//! A lost GPU brought back without being asked: once the browser restores a lost WebGL2
//! context, or on the next call after a lost WebGPU device (a new one is then requested, and
//! the calls made meanwhile fail with [`Error::Lost`] saying so), a new backend of the same
//! kind replaces the lost one in the same [`Gpu`], and [`Gpu::generation`] counts it, so that
//! each matrix learns on its next use that its texture went (see
//! [`crate::gpu::residency::Resident::catch_up`]). A loss asked for ([`Gpu::lose`]) waits
//! for [`Gpu::restore`].

use std::rc::Rc;

use super::base::Gpu;
use crate::backend::{BackendKind, Draw, DynBackend, GpuSource, WebGl2, WebGpu};
use crate::error::{Error, Result};
use crate::global::Canvas;

/// A new backend and its scene renderer.
pub(super) type Opened = (Rc<dyn DynBackend>, Rc<dyn Draw>);

/// How long a call waits for a new WebGPU device being opened ([`Gpu::revived`]), ms.
const WAIT_MS: f64 = 10_000.0;

/// A new backend opened unasked after a loss (natively nothing opens unasked).
#[derive(Default)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(super) enum Revival {
    /// None is being opened.
    #[default]
    Idle,
    /// One is being opened, for the GPU of this generation.
    Pending(u64),
    /// One opened (or failed to), for the GPU of this generation.
    Ready(u64, Result<Opened>),
}

/// Opens a new backend of `kind` and its renderer: WebGPU from `source`, drawing into the
/// page's `canvas` where it gave one. A shared device is refused: only its owner can replace it.
pub(super) async fn open_backend(
    kind: BackendKind,
    source: GpuSource,
    canvas: Option<Canvas>,
) -> Result<Opened> {
    Ok(match kind {
        BackendKind::WebGpu => {
            if source.shared() {
                return Err(Error::Unsupported(
                    "it was a shared GPUDevice, which only its owner can replace: open a new \
                     Gpgpu on a new device"
                        .into(),
                ));
            }
            let b = WebGpu::create_on(source).await?;
            let r = b.renderer(canvas);
            (Rc::new(b), Rc::new(r))
        }
        BackendKind::WebGl2 => {
            let b = WebGl2::create(canvas)?;
            let r = b.renderer();
            (Rc::new(b), Rc::new(r))
        }
    })
}

impl Gpu {
    /// How many times a new backend replaced a lost one: a matrix made under an older
    /// generation lost its texture.
    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// Whether a new backend is being opened unasked (a call that failed with
    /// [`Error::Lost`] may wait for it: [`Gpu::revived`]).
    pub fn reviving(&self) -> bool {
        matches!(*self.revival.borrow(), Revival::Pending(_))
    }

    /// Nothing, while the GPU works. Once lost (and the loss not asked for): a new backend
    /// replaces it now where one can open (WebGL2 once the browser restored the context; a
    /// WebGPU device opened since the last call), else [`Error::Lost`] saying when it will
    /// come back (a new WebGPU device is requested now).
    pub fn revive(&self) -> Result<()> {
        let Some(why) = self.lost() else {
            return Ok(());
        };
        let failed = |e: Error| Error::Lost(format!("{why}; bringing it back failed: {e}"));
        if self.held.get() {
            return Err(Error::Lost(why));
        }
        let generation = self.generation.get();
        let revival = std::mem::take(&mut *self.revival.borrow_mut());
        match revival {
            Revival::Ready(g, Ok((backend, renderer))) if g == generation => {
                return self.install(backend, renderer).map_err(failed);
            }
            // Failed: the next call tries again.
            Revival::Ready(g, Err(e)) if g == generation => return Err(failed(e)),
            Revival::Pending(g) if g == generation => {
                *self.revival.borrow_mut() = Revival::Pending(g);
                return Err(Error::Lost(format!(
                    "{why}; a new device is being opened: call again in a moment"
                )));
            }
            _ => {}
        }
        match self.caps.backend {
            BackendKind::WebGl2 if self.backend().revivable() => {
                let b = WebGl2::create(self.canvas.clone()).map_err(failed)?;
                let r = b.renderer();
                self.install(Rc::new(b), Rc::new(r)).map_err(failed)
            }
            BackendKind::WebGl2 => Err(Error::Lost(format!(
                "{why}; it comes back once the browser restores the context"
            ))),
            BackendKind::WebGpu => {
                self.open_unasked(generation);
                Err(Error::Lost(format!(
                    "{why}; a new device is being opened: call again in a moment"
                )))
            }
        }
    }

    /// Waits (a while at most) for a new backend being opened unasked, then brings it in.
    pub async fn revived(&self) {
        let start = crate::event_loop::now_ms();
        while self.reviving() && crate::event_loop::now_ms() - start < WAIT_MS {
            crate::event_loop::sleep_ms(5.0).await;
        }
        let _ = self.revive();
    }

    /// Starts opening a new WebGPU device for the GPU of `generation` (in the browser; natively
    /// nothing opens unasked).
    fn open_unasked(&self, generation: u64) {
        #[cfg(target_arch = "wasm32")]
        {
            let (slot, source, canvas) = (self.revival.clone(), self.source(), self.canvas.clone());
            *slot.borrow_mut() = Revival::Pending(generation);
            wasm_bindgen_futures::spawn_local(async move {
                let opened = open_backend(BackendKind::WebGpu, source, canvas).await;
                *slot.borrow_mut() = Revival::Ready(generation, opened);
            });
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = generation;
    }

    /// Puts `backend` in place of the lost one, unless it offers less than the lost one did:
    /// an empty pipeline cache and texture pool, and the next generation.
    pub(super) fn install(
        &self,
        backend: Rc<dyn DynBackend>,
        renderer: Rc<dyn Draw>,
    ) -> Result<()> {
        let (was, now) = (&self.caps, backend.capabilities());
        if now.max_texture_size < was.max_texture_size
            || now.max_render_targets < was.max_render_targets
            || now.max_workgroup_storage < was.max_workgroup_storage
            || now.compute != was.compute
        {
            return Err(Error::Unsupported(format!(
                "the new {} offers less than the lost one ({}, {} render targets, {} bytes of \
                 workgroup memory, largest texture {})",
                self.caps.backend.name(),
                now.adapter,
                now.max_render_targets,
                now.max_workgroup_storage,
                now.max_texture_size
            )));
        }
        *self.backend.borrow_mut() = backend;
        let mut kept = self.renderer.borrow_mut();
        if kept.is_some() {
            *kept = Some(renderer);
        }
        self.pool.borrow_mut().restart();
        *self.last_program.borrow_mut() = None;
        self.generation.set(self.generation.get() + 1);
        self.held.set(false);
        *self.revival.borrow_mut() = Revival::Idle;
        Ok(())
    }
}
