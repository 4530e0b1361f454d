//! What the WebGPU backend's pieces share: the device and its queue, the errors and the loss it
//! reported, and the work recorded but not yet submitted.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use super::texture::Shared;
use crate::error::{Error, Result};

/// Most passes recorded into one command buffer before it is submitted. One submission per pass
/// cost about as much as the pass itself through Dawn; more than this would keep the GPU waiting
/// for the first submission of a long solver loop.
const BATCH: usize = 32;

/// Milliseconds a failed read-back waits for `device.lost` to settle (see [`Context::lost_or`]).
const LOSS_WAIT_MS: f64 = 100.0;

/// A WebGPU device and queue, with what they reported and the work recorded for them.
pub(super) struct Context {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    /// Errors the device reported outside any error scope; surfaced at the next read or finish.
    pub(super) errors: Arc<Mutex<Vec<String>>>,
    /// Why the device was lost, once it was.
    pub(super) lost: Arc<Mutex<Option<String>>>,
    /// The compute pass open in `pending`: consecutive dispatches share it (see
    /// [`Context::record_dispatch`]). Declared before `pending`, so that it ends first.
    pass: RefCell<Option<wgpu::ComputePass<'static>>>,
    /// Passes and copies recorded but not yet submitted (see [`Context::record`]).
    pending: RefCell<Option<wgpu::CommandEncoder>>,
    /// How many are recorded in `pending`.
    pending_count: Cell<usize>,
    /// How many records the next submission waits for (see [`Context::record`]).
    batch: Cell<usize>,
    /// What textures share with the backend: whether work is pending, and the textures dropped
    /// meanwhile, destroyed after the next submission.
    pub(super) shared: Rc<Shared>,
    /// texla's `uncapturederror` listener on a shared device, removed with the context.
    _listener: Option<Listener>,
}

/// An `uncapturederror` listener on a device's event target, removed when dropped.
pub(super) struct Listener {
    #[cfg(target_arch = "wasm32")]
    device: wasm_bindgen::JsValue,
    #[cfg(target_arch = "wasm32")]
    listener: wasm_bindgen::JsValue,
}

impl Listener {
    /// Calls `push` with the message of every error `device` reports outside an error scope.
    #[cfg(target_arch = "wasm32")]
    fn add(device: &wgpu::Device, push: impl Fn(String) + 'static) -> Option<Listener> {
        use js_sys::{Function, Reflect};
        use wasm_bindgen::{closure::Closure, JsCast, JsValue};
        let device: JsValue = device.as_webgpu()?.clone().into();
        let listener = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
            let error = Reflect::get(&event, &"error".into()).unwrap_or_default();
            let message = Reflect::get(&error, &"message".into())
                .ok()
                .and_then(|m| m.as_string());
            push(message.unwrap_or_else(|| format!("{error:?}")));
        })
        .into_js_value();
        let add = Reflect::get(&device, &"addEventListener".into())
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        add.call2(&device, &"uncapturederror".into(), &listener)
            .ok()?;
        Some(Listener { device, listener })
    }

    /// Natively no device is shared.
    #[cfg(not(target_arch = "wasm32"))]
    fn add(_device: &wgpu::Device, _push: impl Fn(String) + 'static) -> Option<Listener> {
        None
    }
}

#[cfg(target_arch = "wasm32")]
impl Drop for Listener {
    fn drop(&mut self) {
        use wasm_bindgen::JsCast;
        let remove = js_sys::Reflect::get(&self.device, &"removeEventListener".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(remove) = remove {
            let _ = remove.call2(&self.device, &"uncapturederror".into(), &self.listener);
        }
    }
}

impl Context {
    /// The context of `device` and `queue`, collecting the errors and the loss they report. A
    /// `shared` device (its owner's) keeps its own `onuncapturederror`: texla listens beside it.
    pub(super) fn new(device: wgpu::Device, queue: wgpu::Queue, shared: bool) -> Self {
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        let push = move |e: String| {
            if let Ok(mut list) = sink.lock() {
                list.push(e);
            }
        };
        let listener = if shared {
            Listener::add(&device, push)
        } else {
            device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| push(e.to_string())));
            None
        };
        let lost = Arc::new(Mutex::new(None));
        let why = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut why) = why.lock() {
                why.get_or_insert(format!(
                    "the WebGPU device was lost ({reason:?}: {message})"
                ));
            }
        });
        Context {
            device,
            queue,
            errors,
            lost,
            pass: RefCell::new(None),
            pending: RefCell::new(None),
            pending_count: Cell::new(0),
            batch: Cell::new(1),
            shared: Rc::default(),
            _listener: listener,
        }
    }

    /// Waits for the GPU natively, where callbacks run only from a poll (the browser runs them
    /// from its event loop).
    pub(super) fn wait(&self) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU failed: {e}")))?;
        Ok(())
    }

    /// Turns errors reported since the last check into one `Error::Gpu`.
    pub(super) fn check_errors(&self) -> Result<()> {
        take_errors(&self.errors)
    }

    /// Why the device was lost, once it was.
    pub(super) fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|why| why.clone())
    }

    /// `failure` (a read-back that failed), or [`Error::Lost`] where the device was lost: a
    /// device destroyed from outside fails its read-backs a turn or two before `device.lost`
    /// settles, so this gives the event loop turns for up to [`LOSS_WAIT_MS`] for it to say so.
    pub(super) async fn lost_or(&self, failure: Error) -> Error {
        let start = crate::event_loop::now_ms();
        // (Natively the clock stands still and a turn passes at once: the count bounds it.)
        for _ in 0..1000 {
            if let Some(why) = self.lost() {
                return Error::Lost(why);
            }
            if crate::event_loop::now_ms() - start > LOSS_WAIT_MS {
                break;
            }
            crate::event_loop::next_turn().await;
        }
        failure
    }

    /// Records work (a pass or a copy) into the pending command buffer, submitted before anything
    /// that must see its results ([`Context::flush`]) and whenever `batch` records wait: 1 after
    /// the GPU went idle (a read-back or `finish` waited for it), doubled by every submission up
    /// to [`BATCH`]. So the GPU starts on the first pass of a chain while the CPU records the
    /// next ones, and long loops still pay few submissions. With a fixed batch of 32, a chain of
    /// 10 products at n = 1024 (20 passes) was all recorded before the GPU got any of it: through
    /// Dawn on the H100 the chain took 1.61-1.75 ms to `finish`, 1.03 ms with this.
    pub(super) fn record(&self, work: impl FnOnce(&mut wgpu::CommandEncoder)) {
        self.pass.borrow_mut().take();
        self.with_encoder(work);
        self.counted();
    }

    /// `work` on the pending command encoder, made if there is none.
    fn with_encoder<R>(&self, work: impl FnOnce(&mut wgpu::CommandEncoder) -> R) -> R {
        let mut pending = self.pending.borrow_mut();
        work(pending.get_or_insert_with(|| self.device.create_command_encoder(&Default::default())))
    }

    /// Records a dispatch (its pipeline, bind group and dispatch set by `work`) into the open
    /// compute pass, opening one if the last record was no dispatch, and counts it as
    /// [`Context::record`] does. WebGPU makes each dispatch its own usage scope, so a dispatch
    /// reading what the one before wrote needs no pass of its own. On an H100 a pass for each
    /// dispatch cost about 6 us of GPU time and 7 of CPU a dispatch: A x at n = 1024 made 284
    /// GB/s, 489 in one pass, the product 24.6 TFLOPS, 30.7 in one pass
    /// (bench/records/h100/products/compute-pass-2026-11-26.log).
    pub(super) fn record_dispatch(&self, work: impl FnOnce(&mut wgpu::ComputePass<'static>)) {
        {
            let mut pass = self.pass.borrow_mut();
            let pass = pass.get_or_insert_with(|| {
                self.with_encoder(|e| e.begin_compute_pass(&Default::default()).forget_lifetime())
            });
            work(pass);
        }
        self.counted();
    }

    /// Counts a record, and submits when `batch` records wait.
    fn counted(&self) {
        self.shared.pending.set(true);
        self.pending_count.set(self.pending_count.get() + 1);
        if self.pending_count.get() >= self.batch.get() {
            self.flush();
        }
    }

    /// Notes that the GPU has done everything submitted: the next record is submitted at once.
    pub(super) fn idle(&self) {
        self.batch.set(1);
    }

    /// Submits the recorded work, then destroys the textures dropped while it waited.
    pub(super) fn flush(&self) {
        self.pass.borrow_mut().take();
        if let Some(encoder) = self.pending.borrow_mut().take() {
            self.queue.submit([encoder.finish()]);
            self.batch.set((2 * self.batch.get()).min(BATCH));
        }
        self.pending_count.set(0);
        self.shared.pending.set(false);
        for texture in self.shared.dropped.borrow_mut().drain(..) {
            texture.destroy();
        }
    }
}

/// Turns the errors in `log` into one `Error::Gpu` and empties it.
pub(super) fn take_errors(log: &Mutex<Vec<String>>) -> Result<()> {
    let mut list = log
        .lock()
        .map_err(|_| Error::Gpu("error log poisoned".into()))?;
    if list.is_empty() {
        Ok(())
    } else {
        let all = list.join("; ");
        list.clear();
        Err(Error::Gpu(all))
    }
}
