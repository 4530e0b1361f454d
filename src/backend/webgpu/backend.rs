//! The WebGPU backend, through wgpu.
//!
//! Matrices are `Rgba32Float` textures (an upload may ask for `Rgba16Float`); a program is a
//! render pipeline (full-screen triangle, kernel in the fragment stage) with one uniform buffer
//! of shapes and one texture per input.
//! `rgba32float` is renderable but not filterable in WebGPU, so inputs are bound as
//! unfilterable float textures and read with `textureLoad`, never sampled. The wall's renderer is
//! in `webgpu/scene.rs`.

use std::rc::Rc;

use super::context::Context;
use super::pipelines::Pipelines;
use super::scene::SceneRenderer;
use super::source::GpuSource;
use super::texture::{extent, Texture, TEXEL_BYTES};
use super::transfer::Transfer;
use crate::backend::{is_software, Backend, BackendKind, Capabilities, Format, Values};
use crate::error::{Error, Result};
use crate::global::Canvas;
use crate::kernels::{Kernel, Program};
use crate::layout::Layout;

fn unavailable(why: &str) -> Error {
    Error::BackendUnavailable(format!("WebGPU unavailable: {why}"))
}

/// A WebGPU device that runs texla programs.
pub struct WebGpu {
    /// The device and queue, and the work recorded for them.
    context: Rc<Context>,
    capabilities: Capabilities,
    /// Pipelines, uniform buffers and bind groups of runs.
    pipelines: Pipelines,
    /// Upload's and read-back's kernels and kept buffers.
    transfer: Transfer,
    /// Where the device came from.
    source: GpuSource,
}

impl Drop for WebGpu {
    /// Frees the device's memory now rather than whenever the page's garbage collector gets to
    /// it: a page (or a test run) that opens device after device would otherwise hold them all.
    /// A shared device is its owner's to destroy.
    fn drop(&mut self) {
        if !self.source.shared() {
            self.context.device.destroy();
        }
    }
}

impl WebGpu {
    /// Opens the browser's WebGPU adapter and device (`navigator.gpu`), or says exactly what is
    /// missing.
    pub async fn create() -> Result<Self> {
        Self::create_on(GpuSource::Navigator).await
    }

    /// Opens a WebGPU device from `source`: an adapter and device of `navigator.gpu` or of a
    /// given `GPU`, or a given `GPUDevice` as it is.
    #[cfg(target_arch = "wasm32")]
    pub async fn create_on(source: GpuSource) -> Result<Self> {
        let (instance, gpu) = super::source::instance(&source)?;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| {
                let gpu = match source {
                    GpuSource::Navigator => "navigator.gpu",
                    _ => "gpu",
                };
                unavailable(&format!("{gpu}.requestAdapter() gave no adapter ({e})"))
            })?;
        let names = browser_adapter_info(&gpu).await;
        Self::open(adapter, names, source, wgpu::MemoryHints::default()).await
    }

    /// Opens a native adapter (Vulkan unless `WGPU_BACKEND` names others) and its device: the
    /// same backend code as in the browser, for the native benchmark. `source` is the browser's
    /// alone: natively there is one way.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn create_on(_source: GpuSource) -> Result<Self> {
        Self::create_with(wgpu::MemoryHints::default()).await
    }

    /// [`WebGpu::create`] with wgpu's `memory_hints` (how large the blocks of GPU memory that
    /// textures are placed in are), so that the native benchmark can measure what they change.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn create_with(memory_hints: wgpu::MemoryHints) -> Result<Self> {
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
        Self::open(adapter, names, GpuSource::Navigator, memory_hints).await
    }

    /// Asks `adapter` for a device with the limits texla's kernels use, as large as the adapter
    /// allows: texture size, render targets per pass, workgroup memory, buffer sizes.
    /// (A shared device comes as it is: its owner chose its limits.)
    async fn open(
        adapter: wgpu::Adapter,
        mut adapter_name: Vec<String>,
        source: GpuSource,
        memory_hints: wgpu::MemoryHints,
    ) -> Result<Self> {
        let limits = adapter.limits();
        let tensor = tensor_cores(&adapter);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("texla"),
                required_features: tensor.features,
                experimental_features: tensor.experimental,
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
                memory_hints,
                ..Default::default()
            })
            .await
            .map_err(|e| unavailable(&format!("the adapter refused a device ({e})")))?;
        let context = Rc::new(Context::new(device, queue, source.shared()));
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
        let limits = context.device.limits();
        let capabilities = Capabilities {
            backend: BackendKind::WebGpu,
            software: info.device_type == wgpu::DeviceType::Cpu || is_software(&name),
            adapter: name,
            max_texture_size: limits.max_texture_dimension_2d,
            max_render_targets: (limits.max_color_attachments as usize)
                .min(limits.max_color_attachment_bytes_per_sample as usize / TEXEL_BYTES)
                .max(1),
            max_workgroup_storage: limits.max_compute_workgroup_storage_size as usize,
            compute: true,
            tensor: !tensor.features.is_empty(),
        };
        Ok(WebGpu {
            pipelines: Pipelines::new(&context.device),
            transfer: Transfer::new(context.clone(), !capabilities.software),
            context,
            capabilities,
            source,
        })
    }

    /// Where this device came from (a restored backend comes from the same place).
    pub fn source(&self) -> &GpuSource {
        &self.source
    }

    /// The scene renderer of this device (see `SceneRenderer`), drawing into `canvas` or, without
    /// one, a canvas of its own.
    pub fn renderer(&self, canvas: Option<Canvas>) -> SceneRenderer {
        SceneRenderer::new(
            &self.context.device,
            &self.context.queue,
            &self.context.errors,
            canvas,
        )
    }

    /// Chooses the run-time checks wgpu builds into shaders (bounds checks, loop bounding,
    /// integer division checks; native only: a browser compiles WGSL its own way), so that the
    /// native benchmark can measure what they cost. Pipelines built so far are dropped.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_runtime_checks(&self, checks: wgpu::ShaderRuntimeChecks) {
        self.pipelines.set_runtime_checks(checks);
    }

    /// Chooses whether large matrices are (un)packed on the GPU (by default only on a hardware
    /// adapter), so that tests on a software adapter cover both ways.
    pub fn set_gpu_transfers(&self, on: bool) {
        self.transfer.on_gpu.set(on);
    }

    /// Dispatches a compute kernel: one workgroup per block of output texels.
    fn run_compute(&self, program: &Program, inputs: &[&Texture], output: &Texture) -> Result<()> {
        let compute = program.kernel.compute.expect("a compute kernel");
        let (per_x, per_y) = compute.per_group;
        let key = program.kernel.key();
        let (pipeline, layout) = self.pipelines.compute_pipeline(program, key);
        // New buffers start zeroed: the kernel's counters start at 0 on every run.
        let scratch = (compute.scratch_words > 0).then(|| {
            self.context.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("scratch"),
                size: (4 * compute.scratch_words) as u64,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        });
        let bind_group = match &scratch {
            // A run with scratch storage gets a new buffer, so a bind group of its own.
            Some(buffer) => {
                self.pipelines
                    .bind_group(program, &layout, inputs, Some(output), Some(buffer))
            }
            None => self
                .pipelines
                .cached_bind_group(program, key, &layout, inputs, Some(output)),
        };
        self.context.record_dispatch(|pass| {
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

impl Backend for WebGpu {
    type Texture = Texture;

    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn create_texture(&self, width: usize, height: usize, format: Format) -> Result<Texture> {
        Ok(Texture::new(
            &self.context.device,
            &self.context.shared,
            (width, height),
            format,
        ))
    }

    fn lost(&self) -> Option<String> {
        self.context.lost()
    }

    fn lose(&self) {
        if let Ok(mut why) = self.context.lost.lock() {
            why.get_or_insert("the WebGPU device was destroyed on request".into());
        }
        self.context.device.destroy();
    }

    fn write(&self, t: &Texture, layout: Layout, data: &[f32]) -> Result<()> {
        self.transfer.write_matrix(t, layout, data)
    }

    #[cfg(target_arch = "wasm32")]
    fn write_js(&self, t: &Texture, layout: Layout, data: &js_sys::Float32Array) -> Result<()> {
        self.transfer.write_matrix_js(t, layout, data)
    }

    async fn compile(&self, kernel: &Kernel) -> Result<()> {
        self.pipelines.compile(kernel).await
    }

    fn run(&self, program: &Program, inputs: &[&Texture], outputs: &[&Texture]) -> Result<()> {
        if program.kernel.compute.is_some() {
            return self.run_compute(program, inputs, outputs[0]);
        }
        let key = program.kernel.key();
        let (pipeline, layout) = self.pipelines.pipeline(program, key);
        let bind_group = self
            .pipelines
            .cached_bind_group(program, key, &layout, inputs, None);
        self.context.record(|encoder| {
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
        self.context.record(|encoder| {
            encoder.copy_texture_to_texture(
                at(&src.texture, from),
                at(&dst.texture, to),
                extent(width, height),
            );
        });
        Ok(())
    }

    async fn read(&self, t: &Texture, layout: Layout) -> Result<Values> {
        self.transfer.read_matrix(t, layout, None).await
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
        if let Values::Here(values) = self
            .transfer
            .read_matrix(t, layout, Some(into.clone()))
            .await?
        {
            into.copy_from(&values);
        }
        Ok(())
    }

    fn release_kept(&self) {
        self.transfer.release_buffers();
    }

    #[cfg(target_arch = "wasm32")]
    fn handle(&self, texture: &Texture) -> Result<wasm_bindgen::JsValue> {
        // The passes that write it go to the queue first, so the caller's next submission
        // sees them.
        self.context.flush();
        let texture = texture.texture.as_webgpu().cloned();
        texture
            .map(Into::into)
            .ok_or_else(|| Error::Unsupported("this is no browser WebGPU texture".into()))
    }

    #[cfg(target_arch = "wasm32")]
    fn device_handle(&self) -> Result<wasm_bindgen::JsValue> {
        let device = self.context.device.as_webgpu().cloned();
        device
            .map(Into::into)
            .ok_or_else(|| Error::Unsupported("this is no browser WebGPU device".into()))
    }

    async fn finish(&self) -> Result<()> {
        self.context.flush();
        let (tx, rx) = futures_channel::oneshot::channel();
        self.context.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        self.context.wait()?;
        if rx.await.is_err() {
            return Err(self
                .context
                .lost_or(Error::Gpu("the device was lost".into()))
                .await);
        }
        self.context.idle();
        self.context.check_errors()
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

/// The device features the tensor-core product needs, and the token for wgpu's experimental
/// ones: what [`WebGpu::open`] asks for.
struct TensorFeatures {
    features: wgpu::Features,
    experimental: wgpu::ExperimentalFeatures,
}

/// Natively, where the adapter multiplies 16 x 16 x 16 tiles of float16 into float32 on
/// cooperative matrices in subgroups of 32 (an NVIDIA GPU on Vulkan): cooperative matrices and
/// float16 in shaders. Otherwise, and always in a browser (wgpu's cooperative matrices are
/// native only), nothing: the device is asked for no feature.
fn tensor_cores(adapter: &wgpu::Adapter) -> TensorFeatures {
    let none = TensorFeatures {
        features: wgpu::Features::empty(),
        experimental: wgpu::ExperimentalFeatures::disabled(),
    };
    if cfg!(target_arch = "wasm32") {
        return none;
    }
    let features = wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX | wgpu::Features::SHADER_F16;
    let info = adapter.get_info();
    let f16_into_f32 = adapter.cooperative_matrix_properties().iter().any(|p| {
        (p.m_size, p.n_size, p.k_size) == (16, 16, 16)
            && p.ab_type == wgpu::CooperativeScalarType::F16
            && p.cr_type == wgpu::CooperativeScalarType::F32
    });
    if adapter.features().contains(features)
        && f16_into_f32
        && (info.subgroup_min_size, info.subgroup_max_size) == (32, 32)
    {
        TensorFeatures {
            features,
            // SAFETY: texla uses one experimental feature, cooperative matrices, in one kernel
            // (shaders/products/matmul_tensor.wgsl), checked against float64 on the GPU that
            // runs it (tests/tensor.rs).
            experimental: unsafe { wgpu::ExperimentalFeatures::enabled() },
        }
    } else {
        none
    }
}
