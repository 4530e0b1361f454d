//! The WebGPU backend's matrix texture, and what its pieces share about textures: the format
//! programs render into, its texel size, and the state a texture shares with its device's
//! recorded work.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::backend::Format;

pub(super) const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
pub(super) const TEXEL_BYTES: usize = 16;

/// The state textures share with their backend.
#[derive(Default)]
pub(super) struct Shared {
    /// Whether recorded work waits to be submitted.
    pub(super) pending: Cell<bool>,
    /// Textures dropped while work was pending (it may use them): destroyed after it is submitted.
    pub(super) dropped: RefCell<Vec<wgpu::Texture>>,
}

/// Ids of textures, never reused (see `Pipelines::cached_bind_group`).
static NEXT_TEXTURE: AtomicU64 = AtomicU64::new(1);

/// An `Rgba32Float` texture (an upload's may be `Rgba16Float`) and the view every pass uses.
pub struct Texture {
    pub(super) texture: wgpu::Texture,
    pub(super) format: Format,
    pub(super) view: wgpu::TextureView,
    /// Names this texture in the bind group cache.
    pub(super) id: u64,
    shared: Rc<Shared>,
}

impl Texture {
    /// A new `width x height` texture of `format` on `device`, sharing `shared` with it.
    pub(super) fn new(
        device: &wgpu::Device,
        shared: &Rc<Shared>,
        (width, height): (usize, usize),
        format: Format,
    ) -> Texture {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("matrix"),
            size: extent(width, height),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: match format {
                Format::F32 => FORMAT,
                Format::F16 => wgpu::TextureFormat::Rgba16Float,
            },
            // A float16 texture is only written by uploads: an input, never a target.
            usage: match format {
                Format::F32 => {
                    wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::STORAGE_BINDING
                }
                Format::F16 => wgpu::TextureUsages::empty(),
            } | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Texture {
            texture,
            format,
            view,
            id: NEXT_TEXTURE.fetch_add(1, Ordering::Relaxed),
            shared: shared.clone(),
        }
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

pub(super) fn extent(width: usize, height: usize) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: width as u32,
        height: height as u32,
        depth_or_array_layers: 1,
    }
}
