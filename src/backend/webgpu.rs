//! The WebGPU backend, through wgpu.
//!
//! Matrices are `Rgba32Float` textures; a program is a render pipeline (full-screen triangle,
//! kernel in the fragment stage) with one uniform buffer of shapes and one texture per input.
//! `rgba32float` is renderable but not filterable in WebGPU, so inputs are bound as
//! unfilterable float textures and read with `textureLoad`, never sampled. The wall's renderer is
//! in `webgpu/scene.rs`.

mod pipelines;
mod scene;
mod transfer;

use pipelines::BindGroupKey;
pub use scene::SceneRenderer;
use transfer::Transfer;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{Backend, BackendKind, Capabilities, Values};
use crate::error::{Error, Result};
use crate::kernels::Program;
use crate::layout::Layout;

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
const TEXEL_BYTES: usize = 16;

fn unavailable(why: &str) -> Error {
    Error::BackendUnavailable(format!("WebGPU unavailable: {why}"))
}

/// A WebGPU device that runs texla programs.
pub struct WebGpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    capabilities: Capabilities,
    pipelines: RefCell<HashMap<u64, (wgpu::RenderPipeline, wgpu::BindGroupLayout)>>,
    compute_pipelines: RefCell<HashMap<u64, (wgpu::ComputePipeline, wgpu::BindGroupLayout)>>,
    /// Errors the device reported outside any error scope; surfaced at the next read or finish.
    errors: Arc<Mutex<Vec<String>>>,
    /// Why the device was lost, once it was.
    lost: Arc<Mutex<Option<String>>>,
    /// Uniform buffers by content (see `uniform_buffer`).
    uniforms: RefCell<HashMap<Vec<u8>, wgpu::Buffer>>,
    /// Bind groups of runs (see `cached_bind_group`).
    bind_groups: RefCell<HashMap<BindGroupKey, wgpu::BindGroup>>,
    /// Upload's and read-back's kernels and kept buffers.
    transfer: Transfer,
    /// Passes and copies recorded but not yet submitted (see [`WebGpu::record`]).
    pending: RefCell<Option<wgpu::CommandEncoder>>,
    /// How many are recorded in `pending`.
    pending_count: Cell<usize>,
    /// How many records the next submission waits for (see [`WebGpu::record`]).
    batch: Cell<usize>,
    /// What textures share with the backend: whether work is pending, and the textures dropped
    /// meanwhile, destroyed after the next submission.
    shared: Rc<Shared>,
    /// The run-time checks wgpu builds into shaders: `None` for all of them (always, except
    /// where the native benchmark measures what they cost).
    checks: Cell<Option<wgpu::ShaderRuntimeChecks>>,
    /// Whether large matrices are (un)packed on the GPU (see `transfer`): on a hardware
    /// adapter; on a software one the CPU's own loop is faster.
    gpu_transfers: Cell<bool>,
}

/// Most passes recorded into one command buffer before it is submitted. One submission per pass
/// cost about as much as the pass itself through Dawn; more than this would keep the GPU waiting
/// for the first submission of a long solver loop.
const BATCH: usize = 32;

/// Milliseconds a failed read-back waits for `device.lost` to settle (see [`WebGpu::lost_or`]).
const LOSS_WAIT_MS: f64 = 100.0;

/// The state textures share with their backend.
#[derive(Default)]
struct Shared {
    /// Whether recorded work waits to be submitted.
    pending: Cell<bool>,
    /// Textures dropped while work was pending (it may use them): destroyed after it is submitted.
    dropped: RefCell<Vec<wgpu::Texture>>,
}

/// Ids of textures, never reused (see `cached_bind_group`).
static NEXT_TEXTURE: AtomicU64 = AtomicU64::new(1);

/// An `Rgba32Float` texture and the view every pass uses.
pub struct Texture {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// Names this texture in the bind group cache.
    id: u64,
    shared: Rc<Shared>,
}

impl Drop for WebGpu {
    /// Frees the device's memory now rather than whenever the page's garbage collector gets to
    /// it: a page (or a test run) that opens device after device would otherwise hold them all.
    fn drop(&mut self) {
        self.device.destroy();
    }
}

impl Drop for Texture {
    fn drop(&mut self) {
        // Its memory goes now, unless a pass waiting to be submitted may still use it.
        if self.shared.pending.get() {
            self.shared.dropped.borrow_mut().push(self.texture.clone());
        } else {
            self.texture.destroy();
        }
    }
}

impl WebGpu {
    /// Opens the browser's WebGPU adapter and device, or says exactly what is missing.
    #[cfg(target_arch = "wasm32")]
    pub async fn create() -> Result<Self> {
        let gpu = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
            .and_then(|nav| js_sys::Reflect::get(&nav, &"gpu".into()))
            .unwrap_or(wasm_bindgen::JsValue::UNDEFINED);
        if gpu.is_undefined() || gpu.is_null() {
            return Err(unavailable(
                "navigator.gpu is missing (this browser has no WebGPU, or it is switched off; \
                 Chromium on Linux needs --enable-unsafe-webgpu)",
            ));
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| {
                unavailable(&format!(
                    "navigator.gpu.requestAdapter() gave no adapter ({e})"
                ))
            })?;
        let names = browser_adapter_info(&gpu).await;
        Self::open(adapter, names).await
    }

    /// Opens a native adapter (Vulkan unless `WGPU_BACKEND` names others) and its device: the
    /// same backend code as in the browser, for the native benchmark.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn create() -> Result<Self> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| unavailable(&format!("no native adapter ({e})")))?;
        let info = adapter.get_info();
        let names = vec![format!("{:?} {}", info.backend, info.driver_info)];
        Self::open(adapter, names).await
    }

    /// Asks `adapter` for a device with the limits texla's kernels use, as large as the adapter
    /// allows: texture size, render targets per pass, workgroup memory, buffer sizes.
    async fn open(adapter: wgpu::Adapter, mut adapter_name: Vec<String>) -> Result<Self> {
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("texla"),
                required_limits: wgpu::Limits {
                    max_texture_dimension_2d: limits.max_texture_dimension_2d,
                    max_color_attachments: limits.max_color_attachments,
                    max_color_attachment_bytes_per_sample: limits
                        .max_color_attachment_bytes_per_sample,
                    max_compute_workgroup_storage_size: limits.max_compute_workgroup_storage_size,
                    max_buffer_size: limits.max_buffer_size,
                    max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
                    ..wgpu::Limits::downlevel_defaults()
                },
                ..Default::default()
            })
            .await
            .map_err(|e| unavailable(&format!("the adapter refused a device ({e})")))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut list) = sink.lock() {
                list.push(e.to_string());
            }
        }));
        let lost = Arc::new(Mutex::new(None));
        let why = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut why) = why.lock() {
                why.get_or_insert(format!(
                    "the WebGPU device was lost ({reason:?}: {message})"
                ));
            }
        });
        let info = adapter.get_info();
        if !info.name.is_empty() {
            adapter_name.insert(0, info.name);
        }
        if info.device_type == wgpu::DeviceType::Cpu {
            adapter_name.push("software fallback adapter".into());
        }
        let name = if adapter_name.is_empty() {
            "(the browser does not name its adapter)".into()
        } else {
            adapter_name.join(", ")
        };
        let limits = device.limits();
        let capabilities = Capabilities {
            backend: BackendKind::WebGpu,
            software: info.device_type == wgpu::DeviceType::Cpu || super::is_software(&name),
            adapter: name,
            max_texture_size: limits.max_texture_dimension_2d,
            max_render_targets: (limits.max_color_attachments as usize)
                .min(limits.max_color_attachment_bytes_per_sample as usize / TEXEL_BYTES)
                .max(1),
            max_workgroup_storage: limits.max_compute_workgroup_storage_size as usize,
            compute: true,
        };
        Ok(WebGpu {
            gpu_transfers: Cell::new(!capabilities.software),
            device,
            queue,
            capabilities,
            pipelines: RefCell::new(HashMap::new()),
            compute_pipelines: RefCell::new(HashMap::new()),
            errors,
            lost,
            uniforms: RefCell::new(HashMap::new()),
            bind_groups: RefCell::new(HashMap::new()),
            transfer: Transfer::default(),
            pending: RefCell::new(None),
            pending_count: Cell::new(0),
            batch: Cell::new(1),
            shared: Rc::default(),
            checks: Cell::new(None),
        })
    }

    /// The scene renderer of this device (see `SceneRenderer`).
    pub fn renderer(&self) -> SceneRenderer {
        SceneRenderer::new(&self.device, &self.queue, &self.errors)
    }

    /// Chooses the run-time checks wgpu builds into shaders (bounds checks, loop bounding,
    /// integer division checks; native only: a browser compiles WGSL its own way), so that the
    /// native benchmark can measure what they cost. Pipelines built so far are dropped.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_runtime_checks(&self, checks: wgpu::ShaderRuntimeChecks) {
        self.checks.set(Some(checks));
        self.pipelines.borrow_mut().clear();
        self.compute_pipelines.borrow_mut().clear();
        self.bind_groups.borrow_mut().clear();
    }

    /// Chooses whether large matrices are (un)packed on the GPU (by default only on a hardware
    /// adapter), so that tests on a software adapter cover both ways.
    pub fn set_gpu_transfers(&self, on: bool) {
        self.gpu_transfers.set(on);
    }

    /// Waits for the GPU natively, where callbacks run only from a poll (the browser runs them
    /// from its event loop).
    fn wait(&self) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU failed: {e}")))?;
        Ok(())
    }

    /// Turns errors reported since the last check into one `Error::Gpu`.
    fn check_errors(&self) -> Result<()> {
        take_errors(&self.errors)
    }

    /// `failure` (a read-back that failed), or [`Error::Lost`] where the device was lost: a
    /// device destroyed from outside fails its read-backs a turn or two before `device.lost`
    /// settles, so this gives the event loop turns for up to [`LOSS_WAIT_MS`] for it to say so.
    pub(crate) async fn lost_or(&self, failure: Error) -> Error {
        let start = crate::event_loop::now_ms();
        // (Natively the clock stands still and a turn passes at once: the count bounds it.)
        for _ in 0..1000 {
            if let Some(why) = Backend::lost(self) {
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
    /// that must see its results ([`WebGpu::flush`]) and whenever `batch` records wait: 1 after
    /// the GPU went idle (a read-back or `finish` waited for it), doubled by every submission up
    /// to [`BATCH`]. So the GPU starts on the first pass of a chain while the CPU records the
    /// next ones, and long loops still pay few submissions. With a fixed batch of 32, a chain of
    /// 10 products at n = 1024 (20 passes) was all recorded before the GPU got any of it: through
    /// Dawn on the H100 the chain took 1.61-1.75 ms to `finish`, 1.03 ms with this.
    fn record(&self, work: impl FnOnce(&mut wgpu::CommandEncoder)) {
        {
            let mut pending = self.pending.borrow_mut();
            let encoder = pending
                .get_or_insert_with(|| self.device.create_command_encoder(&Default::default()));
            work(encoder);
        }
        self.shared.pending.set(true);
        self.pending_count.set(self.pending_count.get() + 1);
        if self.pending_count.get() >= self.batch.get() {
            self.flush();
        }
    }

    /// Notes that the GPU has done everything submitted: the next record is submitted at once.
    fn idle(&self) {
        self.batch.set(1);
    }

    /// Submits the recorded work, then destroys the textures dropped while it waited.
    fn flush(&self) {
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

    /// Dispatches a compute kernel: one workgroup per block of output texels.
    fn run_compute(&self, program: &Program, inputs: &[&Texture], output: &Texture) -> Result<()> {
        let compute = program.kernel.compute.expect("a compute kernel");
        let (per_x, per_y) = compute.per_group;
        let key = program.kernel.key();
        let (pipeline, layout) = self.compute_pipeline(program, key);
        // New buffers start zeroed: the kernel's counters start at 0 on every run.
        let scratch = (compute.scratch_words > 0).then(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("scratch"),
                size: (4 * compute.scratch_words) as u64,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        });
        let bind_group = match &scratch {
            // A run with scratch storage gets a new buffer, so a bind group of its own.
            Some(buffer) => self.bind_group(program, &layout, inputs, Some(output), Some(buffer)),
            None => self.cached_bind_group(program, key, &layout, inputs, Some(output)),
        };
        self.record(|encoder| {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&program.kernel.name),
                timestamp_writes: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (groups_x, groups_y) = match program.workgroups {
                Some(n) => (n, 1),
                None => (
                    program.output.width().div_ceil(per_x),
                    program.output.height().div_ceil(per_y),
                ),
            };
            pass.dispatch_workgroups(groups_x as u32, groups_y as u32, 1);
        });
        // `scratch` is dropped here; wgpu frees it once the GPU is done with it.
        Ok(())
    }
}

/// Turns the errors in `log` into one `Error::Gpu` and empties it.
fn take_errors(log: &Mutex<Vec<String>>) -> Result<()> {
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

impl Backend for WebGpu {
    type Texture = Texture;

    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn create_texture(&self, width: usize, height: usize) -> Result<Texture> {
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("matrix"),
            size: extent(width, height),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::STORAGE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Texture {
            texture,
            view,
            id: NEXT_TEXTURE.fetch_add(1, Ordering::Relaxed),
            shared: self.shared.clone(),
        })
    }

    fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|why| why.clone())
    }

    fn lose(&self) {
        if let Ok(mut why) = self.lost.lock() {
            why.get_or_insert("the WebGPU device was destroyed on request".into());
        }
        self.device.destroy();
    }

    fn write(&self, t: &Texture, layout: Layout, data: &[f32]) -> Result<()> {
        self.write_matrix(t, layout, data)
    }

    #[cfg(target_arch = "wasm32")]
    fn write_js(&self, t: &Texture, layout: Layout, data: &js_sys::Float32Array) -> Result<()> {
        self.write_matrix_js(t, layout, data)
    }

    async fn compile(&self, kernel: &crate::kernels::Kernel) -> Result<()> {
        WebGpu::compile(self, kernel).await
    }

    fn run(&self, program: &Program, inputs: &[&Texture], outputs: &[&Texture]) -> Result<()> {
        if program.kernel.compute.is_some() {
            return self.run_compute(program, inputs, outputs[0]);
        }
        let key = program.kernel.key();
        let (pipeline, layout) = self.pipeline(program, key);
        let bind_group = self.cached_bind_group(program, key, &layout, inputs, None);
        self.record(|encoder| {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(&program.kernel.name),
                color_attachments: &outputs
                    .iter()
                    .map(|t| {
                        Some(wgpu::RenderPassColorAttachment {
                            view: &t.view,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                                store: wgpu::StoreOp::Store,
                            },
                        })
                    })
                    .collect::<Vec<_>>(),
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.draw(0..3, 0..1);
        });
        Ok(())
    }

    fn copy_texels(
        &self,
        src: &Texture,
        from: (usize, usize),
        dst: &Texture,
        to: (usize, usize),
        (width, height): (usize, usize),
    ) -> Result<()> {
        let at = |texture, (x, y): (usize, usize)| wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d {
                x: x as u32,
                y: y as u32,
                z: 0,
            },
            aspect: wgpu::TextureAspect::All,
        };
        self.record(|encoder| {
            encoder.copy_texture_to_texture(
                at(&src.texture, from),
                at(&dst.texture, to),
                extent(width, height),
            );
        });
        Ok(())
    }

    async fn read(&self, t: &Texture, layout: Layout) -> Result<Values> {
        self.read_matrix(t, layout, None).await
    }

    #[cfg(target_arch = "wasm32")]
    async fn read_js(
        &self,
        t: &Texture,
        layout: Layout,
        into: &js_sys::Float32Array,
    ) -> Result<()> {
        // A large matrix is copied out of the mapping into `into` itself; a small one comes
        // back in this program's memory.
        if let Values::Here(values) = self.read_matrix(t, layout, Some(into.clone())).await? {
            into.copy_from(&values);
        }
        Ok(())
    }

    fn release_kept(&self) {
        self.release_transfer_buffers();
    }

    async fn finish(&self) -> Result<()> {
        self.flush();
        let (tx, rx) = futures_channel::oneshot::channel();
        self.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        self.wait()?;
        if rx.await.is_err() {
            return Err(self.lost_or(Error::Gpu("the device was lost".into())).await);
        }
        self.idle();
        self.check_errors()
    }
}

/// Vendor, architecture, device and description from `GPUAdapter.info`, the ones the browser
/// fills in (wgpu passes on only the description, which browsers often leave empty).
#[cfg(target_arch = "wasm32")]
async fn browser_adapter_info(gpu: &wasm_bindgen::JsValue) -> Vec<String> {
    use wasm_bindgen::JsCast;
    let get = |o: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).ok();
    let request = get(gpu, "requestAdapter")
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call0(gpu).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    let Some(request) = request else {
        return Vec::new();
    };
    let Some(info) = wasm_bindgen_futures::JsFuture::from(request)
        .await
        .ok()
        .and_then(|adapter| get(&adapter, "info"))
    else {
        return Vec::new();
    };
    ["vendor", "architecture", "device", "description"]
        .iter()
        .filter_map(|k| get(&info, k)?.as_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn extent(width: usize, height: usize) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: width as u32,
        height: height as u32,
        depth_or_array_layers: 1,
    }
}
