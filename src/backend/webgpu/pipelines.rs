//! The WebGPU backend's caches: pipelines by [`Kernel::key`], bind groups by what they bind,
//! uniform buffers by content. Iterative solvers run the same few programs thousands of times,
//! so every per-pass object that can be reused is.

use std::cell::{Cell, RefCell};

use wgpu::util::DeviceExt;

use super::texture::{Texture, FORMAT};
use crate::error::Result;
use crate::hash::Map;
use crate::kernels::{Kernel, Language, ModuleMessage, Program};

/// Most uniform buffers kept for reuse.
const UNIFORM_CACHE: usize = 512;

/// Most bind groups kept for reuse.
const BIND_GROUP_CACHE: usize = 1024;

/// What makes a bind group: the pipeline, the uniforms' bytes, the textures' ids in binding order.
#[derive(PartialEq, Eq, Hash)]
struct BindGroupKey {
    pipeline: u64,
    uniforms: Vec<u8>,
    textures: Vec<u64>,
}

/// The pipelines, uniform buffers and bind groups of a device's runs, built on first use.
pub(super) struct Pipelines {
    device: wgpu::Device,
    render: RefCell<Map<u64, (wgpu::RenderPipeline, wgpu::BindGroupLayout)>>,
    compute: RefCell<Map<u64, (wgpu::ComputePipeline, wgpu::BindGroupLayout)>>,
    /// Uniform buffers by content (see `uniform_buffer`).
    uniforms: RefCell<Map<Vec<u8>, wgpu::Buffer>>,
    /// Bind groups of runs (see `cached_bind_group`).
    bind_groups: RefCell<Map<BindGroupKey, wgpu::BindGroup>>,
    /// The run-time checks wgpu builds into shaders: `None` for all of them, but none for a
    /// kernel marked unchecked (always, except where the native benchmark measures what they
    /// cost).
    checks: Cell<Option<wgpu::ShaderRuntimeChecks>>,
}

impl Pipelines {
    /// Empty caches of `device`.
    pub(super) fn new(device: &wgpu::Device) -> Self {
        Pipelines {
            device: device.clone(),
            render: RefCell::new(Map::default()),
            compute: RefCell::new(Map::default()),
            uniforms: RefCell::new(Map::default()),
            bind_groups: RefCell::new(Map::default()),
            checks: Cell::new(None),
        }
    }

    /// Chooses the run-time checks wgpu builds into shaders; pipelines built so far are dropped.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn set_runtime_checks(&self, checks: wgpu::ShaderRuntimeChecks) {
        self.checks.set(Some(checks));
        self.render.borrow_mut().clear();
        self.compute.borrow_mut().clear();
        self.bind_groups.borrow_mut().clear();
    }

    /// The pipeline of a kernel, built on first use.
    pub(super) fn pipeline(
        &self,
        program: &Program,
        key: u64,
    ) -> (wgpu::RenderPipeline, wgpu::BindGroupLayout) {
        if let Some(p) = self.render.borrow().get(&key) {
            return p.clone();
        }
        let module = self.module(&program.kernel);
        let entry = self.render_pipeline(&program.kernel, &module);
        self.render.borrow_mut().insert(key, entry.clone());
        entry
    }

    /// A fragment kernel's render pipeline from its compiled `module`.
    fn render_pipeline(
        &self,
        kernel: &Kernel,
        module: &wgpu::ShaderModule,
    ) -> (wgpu::RenderPipeline, wgpu::BindGroupLayout) {
        let entries = layout_entries(kernel.inputs.len(), wgpu::ShaderStages::FRAGMENT);
        let (layout, pipeline_layout) = self.layouts(kernel, &entries);
        let pipeline = self
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&kernel.name),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &vec![
                        Some(wgpu::ColorTargetState {
                            format: FORMAT,
                            blend: None,
                            write_mask: wgpu::ColorWrites::ALL,
                        });
                        kernel.outputs
                    ],
                }),
                multiview_mask: None,
                cache: None,
            });
        (pipeline, layout)
    }

    /// Compiles `kernel` and builds its pipeline with every error of the device's caught (an
    /// error scope, pushed and popped with no await between, so nothing else's errors fall into
    /// it): one that does not compile is an [`Error::Compile`] with the compiler's messages,
    /// their lines in the body, and the device goes on as before; one that does is cached for
    /// `run`.
    pub(super) async fn compile(&self, kernel: &Kernel) -> Result<()> {
        let key = kernel.key();
        if self.render.borrow().contains_key(&key) || self.compute.borrow().contains_key(&key) {
            return Ok(());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.module(kernel);
        let built = match kernel.compute {
            None => Built::Render(self.render_pipeline(kernel, &module)),
            Some(_) => Built::Compute(self.build_compute_pipeline(kernel, &module)),
        };
        let caught = scope.pop();
        let info = module.get_compilation_info().await;
        let caught = caught.await;
        let source = kernel.wgsl_source();
        let errors: Vec<ModuleMessage> = info
            .messages
            .into_iter()
            .filter(|m| m.message_type == wgpu::CompilationMessageType::Error)
            .map(|m| module_message(&source, m))
            .collect();
        if !errors.is_empty() {
            return Err(kernel.compile_error(Language::Wgsl, errors));
        }
        if let Some(error) = caught {
            let text = match error {
                wgpu::Error::Validation { description, .. } => description,
                other => other.to_string(),
            };
            let said = ModuleMessage {
                line: None,
                column: None,
                text: text.trim().to_owned(),
            };
            return Err(kernel.compile_error(Language::Wgsl, vec![said]));
        }
        match built {
            Built::Render(entry) => {
                self.render.borrow_mut().insert(key, entry);
            }
            Built::Compute(entry) => {
                self.compute.borrow_mut().insert(key, entry);
            }
        }
        Ok(())
    }

    /// A kernel's compiled module.
    fn module(&self, kernel: &Kernel) -> wgpu::ShaderModule {
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(&kernel.name),
            source: wgpu::ShaderSource::Wgsl(kernel.wgsl_source().into()),
        };
        let unchecked = kernel.compute.is_some_and(|c| c.unchecked);
        match self.checks.get() {
            None if !unchecked => self.device.create_shader_module(descriptor),
            // SAFETY: a kernel marked unchecked is texla's own, its every texture load and store
            // guarded by the shapes of its bindings, its other indices and its loops bounded by
            // construction (`kernels::Compute::unchecked`).
            None => unsafe {
                let unchecked = wgpu::ShaderRuntimeChecks::unchecked();
                self.device
                    .create_shader_module_trusted(descriptor, unchecked)
            },
            // SAFETY: only the native benchmark chooses the checks, for texla's own kernels, whose
            // indices stay in bounds (every load is guarded or clamped) and whose loops end.
            Some(checks) => unsafe { self.device.create_shader_module_trusted(descriptor, checks) },
        }
    }

    /// A kernel's bind group layout (`entries`) and its pipeline layout: what render and compute
    /// pipelines share.
    fn layouts(
        &self,
        kernel: &Kernel,
        entries: &[wgpu::BindGroupLayoutEntry],
    ) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&kernel.name),
                entries,
            });
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&kernel.name),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        (layout, pipeline_layout)
    }

    /// The compute pipeline of a compute kernel, built on first use; its output is a storage
    /// texture at binding 7, its scratch storage (if any) a buffer at binding 8.
    pub(super) fn compute_pipeline(
        &self,
        program: &Program,
        key: u64,
    ) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
        if let Some(p) = self.compute.borrow().get(&key) {
            return p.clone();
        }
        let module = self.module(&program.kernel);
        let entry = self.build_compute_pipeline(&program.kernel, &module);
        self.compute.borrow_mut().insert(key, entry.clone());
        entry
    }

    /// A compute kernel's pipeline from its compiled `module`.
    fn build_compute_pipeline(
        &self,
        kernel: &Kernel,
        module: &wgpu::ShaderModule,
    ) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
        let mut entries = layout_entries(kernel.inputs.len(), wgpu::ShaderStages::COMPUTE);
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: 7,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: FORMAT,
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            count: None,
        });
        if kernel.compute.is_some_and(|c| c.scratch_words > 0) {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: 8,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        let (layout, pipeline_layout) = self.layouts(kernel, &entries);
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&kernel.name),
                layout: Some(&pipeline_layout),
                module,
                entry_point: Some("cs_main"),
                compilation_options: Default::default(),
                cache: None,
            });
        (pipeline, layout)
    }

    /// The bind group of one run: the uniforms (a cached buffer, see `uniform_buffer`), the
    /// inputs, and a storage output and scratch buffer if given.
    pub(super) fn bind_group(
        &self,
        program: &Program,
        layout: &wgpu::BindGroupLayout,
        inputs: &[&Texture],
        storage: Option<&Texture>,
        scratch: Option<&wgpu::Buffer>,
    ) -> wgpu::BindGroup {
        let uniforms = self.uniform_buffer(program);
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniforms.as_entire_binding(),
        }];
        for (i, t) in inputs.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: wgpu::BindingResource::TextureView(&t.view),
            });
        }
        if let Some(out) = storage {
            entries.push(wgpu::BindGroupEntry {
                binding: 7,
                resource: wgpu::BindingResource::TextureView(&out.view),
            });
        }
        if let Some(buffer) = scratch {
            entries.push(wgpu::BindGroupEntry {
                binding: 8,
                resource: buffer.as_entire_binding(),
            });
        }
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&program.kernel.name),
            layout,
            entries: &entries,
        })
    }

    /// The uniform buffer holding `program`'s shapes and parameters. Iterative solvers run the
    /// same program thousands of times per frame (the wall: 2n passes), so buffers are kept by
    /// content and reused; a new buffer per pass exhausted the browser's mapping memory.
    fn uniform_buffer(&self, program: &Program) -> wgpu::Buffer {
        let key = bytemuck::bytes_of(&program.uniforms()).to_vec();
        let mut cache = self.uniforms.borrow_mut();
        if let Some(buffer) = cache.get(&key) {
            return buffer.clone();
        }
        if cache.len() >= UNIFORM_CACHE {
            cache.clear();
        }
        let buffer = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("shapes"),
                contents: &key,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        cache.insert(key, buffer.clone());
        buffer
    }

    /// The bind group of a run without scratch storage, kept by pipeline, uniforms and textures:
    /// creating a bind group was the largest of texla's own per-pass costs through Dawn (28% of
    /// a chain of small products here), and solvers bind the same pooled textures again and
    /// again. Textures are named by ids that are never reused, so the entry of a freed texture is
    /// never found again; the cache is emptied when it holds [`BIND_GROUP_CACHE`] entries.
    pub(super) fn cached_bind_group(
        &self,
        program: &Program,
        pipeline: u64,
        layout: &wgpu::BindGroupLayout,
        inputs: &[&Texture],
        storage: Option<&Texture>,
    ) -> wgpu::BindGroup {
        let key = BindGroupKey {
            pipeline,
            uniforms: bytemuck::bytes_of(&program.uniforms()).to_vec(),
            textures: inputs
                .iter()
                .chain(storage.as_ref())
                .map(|t| t.id)
                .collect(),
        };
        if let Some(group) = self.bind_groups.borrow().get(&key) {
            return group.clone();
        }
        let group = self.bind_group(program, layout, inputs, storage, None);
        let mut cache = self.bind_groups.borrow_mut();
        if cache.len() >= BIND_GROUP_CACHE {
            cache.clear();
        }
        cache.insert(key, group.clone());
        group
    }
}

/// A pipeline just built, of either kind.
enum Built {
    Render((wgpu::RenderPipeline, wgpu::BindGroupLayout)),
    Compute((wgpu::ComputePipeline, wgpu::BindGroupLayout)),
}

/// The bind group layout entries every kernel shares: the uniforms and one texture per input.
fn layout_entries(
    inputs: usize,
    visibility: wgpu::ShaderStages,
) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }];
    for slot in 1..=inputs as u32 {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: slot,
            visibility,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        });
    }
    entries
}

/// A WGSL compiler's message as a [`ModuleMessage`]: its line, and its column counted in
/// characters (wgpu gives bytes).
fn module_message(source: &str, m: wgpu::CompilationMessage) -> ModuleMessage {
    let place = m.location.map(|at| {
        let offset = at.offset as usize;
        let start = offset.saturating_sub(at.line_position.saturating_sub(1) as usize);
        let column = source
            .get(start..offset)
            .map_or(at.line_position as usize, |before| {
                before.chars().count() + 1
            });
        (at.line_number as usize, column)
    });
    ModuleMessage {
        line: place.map(|p| p.0),
        column: place.map(|p| p.1),
        text: m.message,
    }
}
