//! Upload and read-back: between row-major values on the CPU and a matrix texture.
//!
//! The GPU does the (un)packing, so the CPU only copies. Upload: the values are written into a
//! storage buffer as given, and a compute pass packs them into the texture
//! (`shaders/transfer/pack.wgsl`). Read-back: a compute pass unpacks the texture into a
//! row-major storage buffer (`unpack.wgsl`), which is copied into a mappable buffer and mapped;
//! in a browser the mapped bytes become the returned `Float32Array` with one copy in
//! JavaScript, natively they are copied once into a `Vec`.
//!
//! That is for large matrices on a hardware adapter. Below [`LARGE`] bytes the texture copies
//! with the CPU (un)packing cost fewer GPU objects per call (a solver reads a scalar every
//! iteration), and a matrix larger than one storage binding takes them too. So does every
//! matrix on a software adapter, whose "GPU" is the same CPU: Dawn on SwiftShader here took
//! 28 ms to upload two 1024 x 1024 matrices through the pack pass and 5 ms with the CPU's
//! loop, 30 ms to read one back through the unpack pass and 9-19 ms without.
//!
//! In a browser a large upload goes into a kept upload buffer that is mapped already, from a
//! JavaScript array or from wasm memory, with one copy in JavaScript (see
//! [`Transfer::write_mapped`]).
//!
//! A float16 texture (an upload's option) is written the same ways: a large one on a hardware
//! adapter from the row-major float32 values, which the GPU rounds to float16 and packs into
//! the texture's rows in a second buffer (`pack_f16.wgsl`), copied into the texture; a small
//! one by the CPU's copy, its values rounded first. Either way each value is rounded to the
//! nearest float16, ties to even, bit for bit alike. It is read back as any other.
//!
//! Large transfers keep their buffers for the next one: a new buffer costs its creation and
//! Dawn's zero-fill (14% of reading a 4096 x 4096 matrix). Small read-backs keep theirs apart
//! (up to [`SMALL_KEPT`] bytes), so that reading a scalar between two large reads frees neither.
//! Through Dawn on the H100 a copy submitted and mapped took 0.70 ms into a new buffer and 0.10
//! ms into a kept one (`bench/dawn/submit-probe.mjs`), and a buffer destroyed before the GPU went
//! idle cost the next read-back about 10 ms (`bench/records/h100/dawn/latency-2026-11-27.md`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::context::Context;
use super::texture::{extent, Texture, FORMAT};
use crate::backend::{Format, Values};
use crate::error::{Error, Result};
use crate::layout::Layout;

/// Transfers of at least this many bytes are large: (un)packed on the GPU, their buffers kept.
const LARGE: u64 = 1 << 20;

/// Most bytes of mappable buffers kept for small read-backs (each of a power of two bytes).
const SMALL_KEPT: u64 = 4 << 20;

/// A compute pipeline and its bind group layout.
type Pipeline = (wgpu::ComputePipeline, wgpu::BindGroupLayout);

/// The transfer shaders (`shaders/transfer/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Row-major values into a float32 texture.
    Pack,
    /// Row-major values rounded to float16, into a float16 texture's rows in a buffer.
    PackF16,
    /// A texture into row-major values.
    Unpack,
}

impl Pass {
    fn name(self) -> &'static str {
        match self {
            Pass::Pack => "pack",
            Pass::PackF16 => "pack_f16",
            Pass::Unpack => "unpack",
        }
    }
}

/// Upload and read-back through `context`: the transfer kernels, built at first use, and the
/// kept buffers (each taken while a transfer uses it).
pub(super) struct Transfer {
    context: Rc<Context>,
    /// Whether large matrices are (un)packed on the GPU: on a hardware adapter; on a software
    /// one the CPU's own loop is faster.
    pub(super) on_gpu: Cell<bool>,
    pack: RefCell<Option<Pipeline>>,
    pack_f16: RefCell<Option<Pipeline>>,
    unpack: RefCell<Option<Pipeline>>,
    /// The last large upload buffer.
    upload: RefCell<Option<wgpu::Buffer>>,
    /// The last large buffer a read-back unpacked its rows into, or a float16 upload packed
    /// its texels into.
    rows: RefCell<Option<wgpu::Buffer>>,
    /// The last large mappable buffer.
    staging: RefCell<Option<wgpu::Buffer>>,
    /// Mappable buffers of small read-backs that are not in use.
    small: RefCell<Vec<wgpu::Buffer>>,
    /// Upload buffers the page writes into (see [`Transfer::write_matrix_js`]).
    #[cfg(target_arch = "wasm32")]
    mapped: RefCell<Vec<Mapped>>,
}

/// How many mapped upload buffers are kept: the two operands of a product.
#[cfg(target_arch = "wasm32")]
const MAPPED_KEPT: usize = 2;

/// A kept upload buffer (`MAP_WRITE | COPY_SRC`), mapped again as soon as the copy out of it is
/// submitted; `ready` once that mapping has come back.
#[cfg(target_arch = "wasm32")]
struct Mapped {
    buffer: wgpu::Buffer,
    ready: std::rc::Rc<std::cell::Cell<bool>>,
}

impl Transfer {
    /// Transfers through `context`, (un)packing large matrices on the GPU if `on_gpu`.
    pub(super) fn new(context: Rc<Context>, on_gpu: bool) -> Self {
        Transfer {
            context,
            on_gpu: Cell::new(on_gpu),
            pack: RefCell::default(),
            pack_f16: RefCell::default(),
            unpack: RefCell::default(),
            upload: RefCell::default(),
            rows: RefCell::default(),
            staging: RefCell::default(),
            small: RefCell::default(),
            #[cfg(target_arch = "wasm32")]
            mapped: RefCell::default(),
        }
    }

    /// Whether a matrix of `bytes` is (un)packed on the GPU: on a hardware adapter (see
    /// `on_gpu`), large, and within one storage binding.
    fn packs_on_gpu(&self, bytes: u64) -> bool {
        self.on_gpu.get()
            && (LARGE..=self.context.device.limits().max_storage_buffer_binding_size)
                .contains(&bytes)
    }

    /// Writes the matrix `layout` from row-major `data` into `t`: see the module's text.
    pub(super) fn write_matrix(&self, t: &Texture, layout: Layout, data: &[f32]) -> Result<()> {
        // A queue write lands before the next submission: recorded work that reads or writes
        // this texture (a pooled one may have been freed and reused) or the kept upload buffer
        // must be submitted first.
        self.context.flush();
        let bytes = std::mem::size_of_val(data) as u64;
        if !self.packs_on_gpu(bytes) {
            let (width, height) = (layout.width(), layout.height());
            let texels = layout.pack(data);
            let halves: Vec<u16>;
            self.context.queue.write_texture(
                t.texture.as_image_copy(),
                match t.format {
                    Format::F32 => bytemuck::cast_slice(&texels),
                    Format::F16 => {
                        halves = crate::backend::halves(&texels);
                        bytemuck::cast_slice(&halves)
                    }
                },
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some((width * t.format.texel_bytes()) as u32),
                    rows_per_image: Some(height as u32),
                },
                extent(width, height),
            );
            return Ok(());
        }
        // In a browser, through a kept mapped buffer where one is ready (see `write_mapped`).
        #[cfg(target_arch = "wasm32")]
        if self.write_mapped(t, layout, bytes, |mapped| {
            // SAFETY: the view of wasm memory is read at once by `set`, before anything could
            // allocate (and so grow the memory and detach the view).
            let values = unsafe { js_sys::Float32Array::view(data) };
            mapped.set(&values, 0);
        })? {
            return Ok(());
        }
        self.pack_upload(t, layout, bytes, |upload| {
            self.context
                .queue
                .write_buffer(upload, 0, bytemuck::cast_slice(data));
            Ok(())
        })
    }

    /// Fills the kept upload buffer (`bytes`, row-major values) by `fill` and packs it into `t`
    /// on the GPU (`shaders/transfer/pack.wgsl`).
    fn pack_upload(
        &self,
        t: &Texture,
        layout: Layout,
        bytes: u64,
        fill: impl FnOnce(&wgpu::Buffer) -> Result<()>,
    ) -> Result<()> {
        let upload = self.take_buffer(
            &self.upload,
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        fill(&upload)?;
        match t.format {
            Format::F32 => self.transfer_pass(Pass::Pack, (&upload, bytes), t, layout, None),
            Format::F16 => {
                // Rounded and packed into the texture's rows, 256-byte aligned, then copied.
                let row_bytes = (8 * layout.width()).next_multiple_of(256);
                let size = (row_bytes * layout.height()) as u64;
                let halves = self.take_buffer(
                    &self.rows,
                    size,
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                );
                self.transfer_pass(Pass::PackF16, (&upload, bytes), t, layout, Some(&halves));
                self.context.record(|encoder| {
                    encoder.copy_buffer_to_texture(
                        wgpu::TexelCopyBufferInfo {
                            buffer: &halves,
                            layout: wgpu::TexelCopyBufferLayout {
                                offset: 0,
                                bytes_per_row: Some(row_bytes as u32),
                                rows_per_image: Some(layout.height() as u32),
                            },
                        },
                        t.texture.as_image_copy(),
                        extent(layout.width(), layout.height()),
                    )
                });
                *self.rows.borrow_mut() = Some(halves);
            }
        }
        *self.upload.borrow_mut() = Some(upload);
        Ok(())
    }

    /// [`Self::write_matrix`] from a JavaScript array: straight into a kept mapped buffer where
    /// one is ready (no copy into wasm memory), else `GPUQueue.writeBuffer` takes the page's
    /// array. Small arrays go as `write_matrix`.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn write_matrix_js(
        &self,
        t: &Texture,
        layout: Layout,
        data: &js_sys::Float32Array,
    ) -> Result<()> {
        let bytes = u64::from(data.byte_length());
        let Some(queue) = self
            .context
            .queue
            .as_webgpu()
            .filter(|_| self.packs_on_gpu(bytes))
        else {
            return self.write_matrix(t, layout, &data.to_vec());
        };
        self.context.flush();
        if self.write_mapped(t, layout, bytes, |mapped| mapped.set(data, 0))? {
            return Ok(());
        }
        self.pack_upload(t, layout, bytes, |upload| {
            let buffer = upload
                .as_webgpu()
                .ok_or_else(|| Error::Gpu("the upload buffer is not a WebGPU buffer".into()))?;
            queue
                .write_buffer_with_f64_and_buffer_source(buffer, 0.0, data)
                .map_err(|e| Error::Gpu(format!("writing the upload failed: {e:?}")))
        })
    }

    /// Writes a large upload of `bytes` (row-major values, put by `fill` into the mapping seen
    /// as floats) through a kept upload buffer that is already mapped, which the GPU copies
    /// from and packs into `t`; the buffer is then mapped again for a later upload. `false`
    /// where none is ready: then the caller writes through `GPUQueue.writeBuffer`, which costs
    /// Dawn new staging memory every call (4x slower at 64 MiB on the H100,
    /// `bench/dawn/transfer.mjs`). Recorded work must be submitted first.
    #[cfg(target_arch = "wasm32")]
    fn write_mapped(
        &self,
        t: &Texture,
        layout: Layout,
        bytes: u64,
        fill: impl FnOnce(&js_sys::Float32Array),
    ) -> Result<bool> {
        let Some(mapped) = self.take_mapped(bytes) else {
            return Ok(false);
        };
        {
            let view = mapped
                .buffer
                .get_mapped_range(..bytes)
                .map_err(|e| Error::Gpu(format!("writing the upload failed: {e}")))?;
            let bytes = view.as_uint8array();
            fill(&js_sys::Float32Array::new_with_byte_offset_and_length(
                &bytes.buffer(),
                bytes.byte_offset(),
                bytes.byte_length() / 4,
            ));
        }
        mapped.buffer.unmap();
        self.pack_upload(t, layout, bytes, |upload| {
            self.context.record(|encoder| {
                encoder.copy_buffer_to_buffer(&mapped.buffer, 0, upload, 0, bytes)
            });
            Ok(())
        })?;
        // A buffer must not be mapped (or waiting for its mapping) when its copy is submitted.
        self.context.flush();
        mapped.ready.set(false);
        let ready = mapped.ready.clone();
        mapped
            .buffer
            .map_async(wgpu::MapMode::Write, .., move |r| ready.set(r.is_ok()));
        self.mapped.borrow_mut().push(mapped);
        Ok(true)
    }

    /// A kept upload buffer of at least `bytes` that is mapped now; a new one (mapped at
    /// creation) while fewer than [`MAPPED_KEPT`] are kept or one of them is ready but too
    /// small; else none.
    #[cfg(target_arch = "wasm32")]
    fn take_mapped(&self, bytes: u64) -> Option<Mapped> {
        let mut kept = self.mapped.borrow_mut();
        if let Some(i) = kept
            .iter()
            .position(|m| m.ready.get() && m.buffer.size() >= bytes)
        {
            return Some(kept.swap_remove(i));
        }
        if kept.len() >= MAPPED_KEPT {
            let small = kept.iter().position(|m| m.ready.get())?;
            kept.swap_remove(small).buffer.destroy();
        }
        let buffer = self.context.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("upload"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        let ready = std::rc::Rc::new(std::cell::Cell::new(true));
        Some(Mapped { buffer, ready })
    }

    /// Reads the matrix `layout` held by `t`: see the module's text. A large one goes into
    /// `into` where given (as long as the matrix), else into a new array.
    pub(super) async fn read_matrix(
        &self,
        t: &Texture,
        layout: Layout,
        into: Option<Destination>,
    ) -> Result<Values> {
        let bytes = (4 * layout.rows * layout.cols) as u64;
        let direct = self.packs_on_gpu(bytes);
        // The fallback copies texel rows, which must start at multiples of 256 bytes.
        let row_bytes = layout.width() * t.format.texel_bytes();
        let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as usize;
        let padded_row = row_bytes.div_ceil(align) * align;
        let size = if direct {
            bytes
        } else {
            (padded_row * layout.height()) as u64
        };
        let staging = if size >= LARGE {
            self.take_buffer(&self.staging, size, MAP_READ)
        } else {
            self.take_small(size)
        };
        let rows = direct.then(|| {
            self.take_buffer(
                &self.rows,
                bytes,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )
        });
        if let Some(rows) = &rows {
            self.transfer_pass(Pass::Unpack, (rows, bytes), t, layout, None);
            self.context
                .record(|encoder| encoder.copy_buffer_to_buffer(rows, 0, &staging, 0, bytes));
        } else {
            self.context.record(|encoder| {
                encoder.copy_texture_to_buffer(
                    t.texture.as_image_copy(),
                    wgpu::TexelCopyBufferInfo {
                        buffer: &staging,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(padded_row as u32),
                            rows_per_image: Some(layout.height() as u32),
                        },
                    },
                    extent(layout.width(), layout.height()),
                );
            });
        }
        self.context.flush();
        if rows.is_some() {
            *self.rows.borrow_mut() = rows;
        }
        let (tx, rx) = futures_channel::oneshot::channel();
        staging.map_async(wgpu::MapMode::Read, ..size, move |r| {
            let _ = tx.send(r);
        });
        let destination =
            direct.then(|| into.unwrap_or_else(|| destination(layout.rows * layout.cols)));
        self.context.wait()?;
        let mapped = match rx.await {
            Ok(mapped) => mapped.map_err(|e| Error::Gpu(format!("read-back failed: {e}"))),
            Err(_) => Err(Error::Gpu("read-back was cancelled".into())),
        };
        self.context.idle();
        self.context.check_errors()?;
        if let Err(failure) = mapped {
            return Err(self.context.lost_or(failure).await);
        }
        let values = {
            let view = staging
                .get_mapped_range(..size)
                .map_err(|e| Error::Gpu(format!("read-back failed: {e}")))?;
            if let Some(destination) = destination {
                values_of(&view, destination)
            } else {
                let mut texels = Vec::with_capacity(4 * layout.width() * layout.height());
                for row in view.chunks_exact(padded_row) {
                    match t.format {
                        Format::F32 => texels.extend(floats(&row[..row_bytes])),
                        Format::F16 => widen(&row[..row_bytes], &mut texels),
                    }
                }
                Values::Here(layout.unpack(&texels))
            }
        };
        staging.unmap();
        if size >= LARGE {
            *self.staging.borrow_mut() = Some(staging);
        } else {
            self.keep_small(staging);
        }
        Ok(values)
    }

    /// Records `pass` (its pipeline built at first use) between the first `bytes` of `buffer`
    /// and the texture `t` of `layout`; a float16 upload packs into `halves`.
    fn transfer_pass(
        &self,
        pass: Pass,
        (buffer, bytes): (&wgpu::Buffer, u64),
        t: &Texture,
        layout: Layout,
        halves: Option<&wgpu::Buffer>,
    ) {
        let slot = match pass {
            Pass::Pack => &self.pack,
            Pass::PackF16 => &self.pack_f16,
            Pass::Unpack => &self.unpack,
        };
        let (pipeline, bind_layout) = slot
            .borrow_mut()
            .get_or_insert_with(|| self.transfer_pipeline(pass))
            .clone();
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(bytes),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&t.view),
            },
        ];
        entries.extend(halves.map(|halves| wgpu::BindGroupEntry {
            binding: 2,
            resource: halves.as_entire_binding(),
        }));
        let bind_group = self
            .context
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(pass.name()),
                layout: &bind_layout,
                entries: &entries,
            });
        self.context.record(|encoder| {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(pass.name()),
                timestamp_writes: None,
            });
            compute.set_pipeline(&pipeline);
            compute.set_bind_group(0, &bind_group, &[]);
            // Workgroups of 64 columns x 4 texel rows (see the shaders).
            compute.dispatch_workgroups(
                layout.width().div_ceil(64) as u32,
                layout.height().div_ceil(4) as u32,
                1,
            );
        });
    }

    /// The pipeline of a transfer shader: binding 0 the row-major buffer, binding 1 the texture
    /// (written as a storage texture by pack, read by the others: pack_f16 takes only its
    /// size), binding 2 pack_f16's packed texels.
    fn transfer_pipeline(&self, pass: Pass) -> Pipeline {
        let device = &self.context.device;
        let shader = match pass {
            Pass::Pack => crate::kernels::built_shader!("transfer", "pack", ".wgsl"),
            Pass::PackF16 => crate::kernels::built_shader!("transfer", "pack_f16", ".wgsl"),
            Pass::Unpack => crate::kernels::built_shader!("transfer", "unpack", ".wgsl"),
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(pass.name()),
            source: wgpu::ShaderSource::Wgsl(shader.into()),
        });
        let texture = if pass == Pass::Pack {
            wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: FORMAT,
                view_dimension: wgpu::TextureViewDimension::D2,
            }
        } else {
            wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            }
        };
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty,
            count: None,
        };
        let buffer = |read_only| wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let mut entries = vec![entry(0, buffer(pass != Pass::Unpack)), entry(1, texture)];
        if pass == Pass::PackF16 {
            entries.push(entry(2, buffer(false)));
        }
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(pass.name()),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(pass.name()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(pass.name()),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("cs_main"),
            compilation_options: Default::default(),
            cache: None,
        });
        (pipeline, layout)
    }

    /// Frees the kept buffers (after the work that may use them is submitted).
    pub(super) fn release_buffers(&self) {
        self.context.flush();
        let slots = [&self.upload, &self.rows, &self.staging];
        for buffer in slots
            .into_iter()
            .filter_map(|slot| slot.borrow_mut().take())
            .chain(self.small.borrow_mut().drain(..))
        {
            buffer.destroy();
        }
        #[cfg(target_arch = "wasm32")]
        for mapped in self.mapped.borrow_mut().drain(..) {
            mapped.buffer.destroy();
        }
    }

    /// A kept small mappable buffer of at least `size` bytes, else a new one of the next power
    /// of two.
    fn take_small(&self, size: u64) -> wgpu::Buffer {
        let mut kept = self.small.borrow_mut();
        match kept.iter().position(|b| b.size() >= size) {
            Some(i) => kept.swap_remove(i),
            None => self.new_buffer(size.next_power_of_two().max(256), MAP_READ),
        }
    }

    /// Keeps a small mappable buffer for the next read-back, unless that would keep more than
    /// [`SMALL_KEPT`] bytes.
    fn keep_small(&self, buffer: wgpu::Buffer) {
        let mut kept = self.small.borrow_mut();
        if kept.iter().map(wgpu::Buffer::size).sum::<u64>() + buffer.size() <= SMALL_KEPT {
            kept.push(buffer);
        } else {
            buffer.destroy();
        }
    }

    /// The buffer kept in `slot` if it is large enough, else a new one of `size` bytes.
    fn take_buffer(
        &self,
        slot: &RefCell<Option<wgpu::Buffer>>,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let kept = if size >= LARGE {
            slot.borrow_mut().take()
        } else {
            None
        };
        match kept {
            Some(kept) if kept.size() >= size => kept,
            other => {
                other.inspect(wgpu::Buffer::destroy);
                self.new_buffer(size, usage)
            }
        }
    }

    /// A new buffer of `size` bytes for `usage`.
    fn new_buffer(&self, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.context.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("transfer"),
            size,
            usage,
            mapped_at_creation: false,
        })
    }
}

/// The usage of a buffer that read-backs map.
const MAP_READ: wgpu::BufferUsages =
    wgpu::BufferUsages::COPY_DST.union(wgpu::BufferUsages::MAP_READ);

/// Where a large read-back goes: a JavaScript array in a browser, this program's memory natively.
#[cfg(target_arch = "wasm32")]
pub(super) type Destination = js_sys::Float32Array;
/// Where a large read-back goes: a JavaScript array in a browser, this program's memory natively.
#[cfg(not(target_arch = "wasm32"))]
pub(super) type Destination = Vec<f32>;

/// Where the `n` values of a large read-back go, made while the GPU works: in a browser a
/// `Float32Array` whose pages are touched now, not while the mapped values are copied in (40 of
/// the 45 ms of copying 64 MiB into a new array on the H100 were the new pages' faults). An
/// array the caller keeps (`readInto`) has its pages already.
#[cfg(target_arch = "wasm32")]
fn destination(n: usize) -> js_sys::Float32Array {
    let array = js_sys::Float32Array::new_with_length(n as u32);
    array.fill(0.0, 0, n as u32);
    array
}

/// Where the `n` values of a large read-back go.
#[cfg(not(target_arch = "wasm32"))]
fn destination(n: usize) -> Vec<f32> {
    Vec::with_capacity(n)
}

/// The values of a mapped range copied into `destination`, which is as long as they are: in a
/// browser with one copy in JavaScript, never through wasm memory.
#[cfg(target_arch = "wasm32")]
fn values_of(view: &wgpu::BufferView, destination: js_sys::Float32Array) -> Values {
    let bytes = view.as_uint8array();
    let floats = js_sys::Float32Array::new_with_byte_offset_and_length(
        &bytes.buffer(),
        bytes.byte_offset(),
        destination.length(),
    );
    destination.set(&floats, 0);
    Values::Js(destination)
}

/// The values of a mapped range (as long as `destination` is meant to be) appended to it.
#[cfg(not(target_arch = "wasm32"))]
fn values_of(view: &wgpu::BufferView, mut destination: Vec<f32>) -> Values {
    destination.extend(floats(view));
    Values::Here(destination)
}

/// Appends the little-endian float16 values of `bytes` to `out`, as float32.
fn widen(bytes: &[u8], out: &mut Vec<f32>) {
    for b in bytes.chunks_exact(2) {
        out.push(half::f16::from_le_bytes([b[0], b[1]]).to_f32());
    }
}

/// Little-endian f32s (GPU data, wasm and x86 alike): cast where the bytes are aligned to f32
/// (the mapped range makes no promise), else decoded.
fn floats(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    let cast = bytemuck::try_cast_slice::<u8, f32>(bytes).ok();
    let decoded = cast.is_none().then(|| {
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    });
    cast.into_iter()
        .flatten()
        .copied()
        .chain(decoded.into_iter().flatten())
}
