//! The wall's renderer on WebGPU: lit boxes and a ball (`shaders/scene/scene.wgsl`) drawn into
//! an RGBA8 texture and shown on a 2D canvas (see [`SceneRenderer`]).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use super::context::take_errors;
use super::texture::extent;
use crate::backend::Draw;
use crate::error::Result;
use crate::global::Canvas;
use crate::scene::{Scene, BALL_VERTICES, BOX_VERTICES};

const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24Plus;
/// The scene's colour target: bytes in the order of a 2D canvas's `ImageData`.
const SCENE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Frames drawn but not yet on the canvas, at most: a draw beyond them is skipped, so that
/// frames asked for faster than the GPU draws them (a sleeping wall steps in microseconds) do
/// not pile up in its queue and delay every later read-back.
const FRAMES_IN_FLIGHT: usize = 2;
/// Bytes of one [`Scene`] (the uniform block).
const SCENE_BYTES: u64 = std::mem::size_of::<Scene>() as u64;

/// Draws the wall with the device that computes it. Made by `WebGpu::renderer`.
pub struct SceneRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// The device's error log, shared with the backend.
    errors: Arc<Mutex<Vec<String>>>,
    /// The canvas the page gave to draw into, if it gave one.
    given: Option<Canvas>,
    /// The canvas, render target and pipeline, made on the first draw.
    target: RefCell<Option<SceneTarget>>,
}

/// Where and how [`SceneRenderer`] draws. The scene is drawn into `color`, copied into a
/// read-back buffer and put on a 2D canvas when the buffer maps, instead of into a WebGPU canvas
/// context: on Chromium 156 with SwiftShader, `getCurrentTexture()` of any WebGPU canvas breaks
/// every buffer mapping of every device that exists at that moment ("A valid external Instance
/// reference no longer exists"), so the next read-back of the solver would fail. That holds for
/// a `<canvas>` and an `OffscreenCanvas`, in or out of the document, rgba8unorm or bgra8unorm,
/// opaque or premultiplied (`node tools/wall-draw-probe.mjs 30 contexts`). The way round
/// costs little: the copy, the mapping and `putImageData` together take 1 to 3 ms of a frame
/// whose rasterizing takes 8 to 14 on SwiftShader (load 4).
struct SceneTarget {
    canvas: Canvas,
    color: wgpu::Texture,
    depth: wgpu::TextureView,
    pipeline: wgpu::RenderPipeline,
    /// The scenes of a frame, one every `stride` bytes (dynamic offsets), room for `chunks`.
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    layout: wgpu::BindGroupLayout,
    stride: u64,
    chunks: usize,
    /// Read-back buffers of the current size, free for the next frame.
    staging: Rc<RefCell<Staging>>,
    /// Frames submitted whose read-back has not mapped yet.
    in_flight: Rc<Cell<usize>>,
}

/// Read-back buffers of one frame size; a frame whose buffer comes back after a resize drops it.
#[derive(Default)]
struct Staging {
    size: (u32, u32),
    free: Vec<wgpu::Buffer>,
}

impl SceneRenderer {
    /// A renderer on `device`, reporting into the device's error log, drawing into `canvas`
    /// (through its 2D context) or, without one, into a new canvas ([`Canvas::new`]).
    pub(super) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        errors: &Arc<Mutex<Vec<String>>>,
        canvas: Option<Canvas>,
    ) -> Self {
        SceneRenderer {
            device: device.clone(),
            queue: queue.clone(),
            errors: errors.clone(),
            given: canvas,
            target: RefCell::new(None),
        }
    }

    /// Makes the scene target on first use.
    fn ensure_scene(&self) -> Result<()> {
        if self.target.borrow().is_none() {
            let target = self.scene_target()?;
            *self.target.borrow_mut() = Some(target);
        }
        Ok(())
    }

    /// The canvas (the page's or a new one), its render targets, and the scene pipeline
    /// (`shaders/scene.wgsl`).
    fn scene_target(&self) -> Result<SceneTarget> {
        let canvas = match &self.given {
            Some(canvas) => canvas.clone(),
            None => Canvas::new()?,
        };
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("scene"),
                source: wgpu::ShaderSource::Wgsl(
                    crate::kernels::built_shader!("scene", "scene", ".wgsl").into(),
                ),
            });
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("scene"),
                entries: &[wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(SCENE_BYTES),
                    },
                    count: None,
                }],
            });
        let alignment = u64::from(self.device.limits().min_uniform_buffer_offset_alignment);
        let stride = SCENE_BYTES.div_ceil(alignment) * alignment;
        let (buffer, bind_group) = self.scene_buffer(&layout, stride, 1);
        let pipeline_layout = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("scene"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("scene"),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                // Back faces culled (`shaders/scene/`: every triangle turns counter-clockwise
                // seen from outside).
                primitive: wgpu::PrimitiveState {
                    cull_mode: Some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(SCENE_FORMAT.into())],
                }),
                multiview_mask: None,
                cache: None,
            });
        Ok(SceneTarget {
            color: self.scene_texture(width, height, SCENE_FORMAT),
            depth: self
                .scene_texture(width, height, DEPTH_FORMAT)
                .create_view(&Default::default()),
            canvas,
            pipeline,
            buffer,
            bind_group,
            layout,
            stride,
            chunks: 1,
            staging: Default::default(),
            in_flight: Default::default(),
        })
    }

    /// A uniform buffer for `chunks` scenes `stride` bytes apart, and its bind group (one
    /// scene's range, placed by a dynamic offset).
    fn scene_buffer(
        &self,
        layout: &wgpu::BindGroupLayout,
        stride: u64,
        chunks: usize,
    ) -> (wgpu::Buffer, wgpu::BindGroup) {
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scene"),
            size: stride * chunks as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scene"),
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(SCENE_BYTES),
                }),
            }],
        });
        (buffer, bind_group)
    }

    /// A `width x height` target of the scene pass (colour or depth).
    fn scene_texture(&self, width: u32, height: u32, format: wgpu::TextureFormat) -> wgpu::Texture {
        self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("scene"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    }

    /// Maps `staging` (the frame just copied into it, rows of `row` bytes) and puts it on the
    /// scene's canvas when it maps; then the buffer goes back to the pool of its size.
    #[cfg(target_arch = "wasm32")]
    fn show_when_mapped(&self, t: &SceneTarget, staging: wgpu::Buffer, row: u32) {
        let (canvas, pool, errors) = (t.canvas.clone(), t.staging.clone(), self.errors.clone());
        let (width, height) = (t.color.width(), t.color.height());
        let mapped = staging.clone();
        let in_flight = t.in_flight.clone();
        in_flight.set(in_flight.get() + 1);
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            in_flight.set(in_flight.get() - 1);
            let shown = result
                .map_err(|e| e.to_string())
                .and_then(|()| show_frame(&canvas, &mapped, width, height, row));
            mapped.unmap();
            if let Err(e) = shown {
                if let Ok(mut list) = errors.lock() {
                    list.push(format!("showing a frame of the wall failed: {e}"));
                }
            }
            let mut pool = pool.borrow_mut();
            if pool.size == (width, height) {
                pool.free.push(mapped);
            }
        });
    }

    /// Natively there is no canvas to show a frame on (and `draw` fails before it gets here).
    #[cfg(not(target_arch = "wasm32"))]
    fn show_when_mapped(&self, _: &SceneTarget, _: wgpu::Buffer, _: u32) {}
}

impl Draw for SceneRenderer {
    fn draw(&self, scenes: &[Scene]) -> Result<()> {
        self.ensure_scene()?;
        let mut guard = self.target.borrow_mut();
        let t = guard.as_mut().expect("made above");
        if t.in_flight.get() >= FRAMES_IN_FLIGHT {
            return Ok(());
        }
        let (width, height) = (t.canvas.width().max(1), t.canvas.height().max(1));
        if (width, height) != (t.color.width(), t.color.height()) {
            t.color = self.scene_texture(width, height, SCENE_FORMAT);
            t.depth = self
                .scene_texture(width, height, DEPTH_FORMAT)
                .create_view(&Default::default());
        }
        if scenes.len() > t.chunks {
            t.chunks = scenes.len().next_power_of_two();
            (t.buffer, t.bind_group) = self.scene_buffer(&t.layout, t.stride, t.chunks);
        }
        let mut bytes = vec![0u8; t.stride as usize * scenes.len()];
        for (chunk, scene) in bytes.chunks_mut(t.stride as usize).zip(scenes) {
            chunk[..SCENE_BYTES as usize].copy_from_slice(bytemuck::bytes_of(scene));
        }
        self.queue.write_buffer(&t.buffer, 0, &bytes);
        let view = t.color.create_view(&Default::default());
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.80,
                            g: 0.86,
                            b: 0.93,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &t.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&t.pipeline);
            for (i, scene) in scenes.iter().enumerate() {
                pass.set_bind_group(0, &t.bind_group, &[(i as u64 * t.stride) as u32]);
                let [count, balls, ..] = scene.count;
                pass.draw(0..BOX_VERTICES, 0..balls);
                pass.draw(0..BALL_VERTICES, balls..count);
            }
        }
        // The frame goes to a read-back buffer, and from there to the canvas once it maps.
        let row = (4 * width).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let staging = {
            let mut pool = t.staging.borrow_mut();
            if pool.size != (width, height) {
                *pool = Staging {
                    size: (width, height),
                    free: Vec::new(),
                };
            }
            pool.free.pop().unwrap_or_else(|| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("scene read-back"),
                    size: u64::from(row * height),
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                })
            })
        };
        encoder.copy_texture_to_buffer(
            t.color.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(height),
                },
            },
            extent(width as usize, height as usize),
        );
        self.queue.submit([encoder.finish()]);
        self.show_when_mapped(t, staging, row);
        take_errors(&self.errors)
    }

    fn canvas(&self) -> Result<Canvas> {
        self.ensure_scene()?;
        Ok(self
            .target
            .borrow()
            .as_ref()
            .expect("made above")
            .canvas
            .clone())
    }
}

/// Puts the mapped frame (`height` rows of `row` bytes, RGBA8) on `canvas` through its 2D
/// context: the rows as they are, `row / 4` texels wide, of which the first `width` are put (a
/// repacking loop over the bytes had cost 5 ms a frame).
#[cfg(target_arch = "wasm32")]
fn show_frame(
    canvas: &Canvas,
    buffer: &wgpu::Buffer,
    width: u32,
    height: u32,
    row: u32,
) -> std::result::Result<(), String> {
    let js = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let context = canvas.context_2d().map_err(|e| e.to_string())?;
    let bytes = buffer.get_mapped_range(..).map_err(|e| e.to_string())?;
    let image = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
        wasm_bindgen::Clamped(&bytes[..]),
        row / 4,
        height,
    )
    .map_err(js)?;
    context
        .put_image_data(
            &image,
            0.0,
            0.0,
            0.0,
            0.0,
            f64::from(width),
            f64::from(height),
        )
        .map_err(js)
}
