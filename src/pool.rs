//! [`Pool`]: textures are reused rather than created for every result and temporary.
//!
//! A matrix's texture goes back to its device's pool when the last handle to it drops, and the
//! next matrix of the same texture size takes it from there. The pool counts what is live (held
//! by matrices) and what is pooled (free, kept for reuse), in textures and bytes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use crate::backend::Backend;
use crate::error::Result;

/// Free textures kept for reuse are capped at this many bytes; past it they are really freed.
pub const MAX_POOLED_BYTES: usize = 256 << 20;

/// Live and pooled textures of one device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Textures held by matrices.
    pub live_textures: usize,
    /// Their bytes (16 per texel).
    pub live_bytes: usize,
    /// Free textures kept for reuse.
    pub pooled_textures: usize,
    /// Their bytes.
    pub pooled_bytes: usize,
}

/// The free textures of one device, by size, and the counts.
pub struct Pool<B: Backend> {
    free: HashMap<(usize, usize), Vec<B::Texture>>,
    stats: MemoryStats,
}

/// A texture on loan from a pool; it goes back when dropped.
pub struct Pooled<B: Backend> {
    texture: Option<B::Texture>,
    size: (usize, usize),
    pool: Weak<RefCell<Pool<B>>>,
}

impl<B: Backend> Pooled<B> {
    /// The texture.
    pub fn texture(&self) -> &B::Texture {
        self.texture
            .as_ref()
            .expect("a pooled texture is only taken in drop")
    }
}

impl<B: Backend> Drop for Pooled<B> {
    fn drop(&mut self) {
        if let (Some(texture), Some(pool)) = (self.texture.take(), self.pool.upgrade()) {
            pool.borrow_mut().give_back(self.size, texture);
        }
    }
}

fn bytes((w, h): (usize, usize)) -> usize {
    16 * w * h
}

impl<B: Backend> Pool<B> {
    /// An empty pool, shared by a device and the textures it lends.
    pub fn new() -> Rc<RefCell<Self>> {
        Rc::new(RefCell::new(Pool {
            free: HashMap::new(),
            stats: MemoryStats::default(),
        }))
    }

    /// A texture of `width x height` texels: a pooled one if there is one, else a new one.
    pub fn take(
        pool: &Rc<RefCell<Self>>,
        backend: &B,
        width: usize,
        height: usize,
    ) -> Result<Pooled<B>> {
        let size = (width, height);
        let reused = {
            let mut p = pool.borrow_mut();
            let t = p.free.get_mut(&size).and_then(Vec::pop);
            if t.is_some() {
                p.stats.pooled_textures -= 1;
                p.stats.pooled_bytes -= bytes(size);
            }
            t
        };
        let texture = match reused {
            Some(t) => t,
            None => backend.create_texture(width, height)?,
        };
        let mut p = pool.borrow_mut();
        p.stats.live_textures += 1;
        p.stats.live_bytes += bytes(size);
        Ok(Pooled {
            texture: Some(texture),
            size,
            pool: Rc::downgrade(pool),
        })
    }

    fn give_back(&mut self, size: (usize, usize), texture: B::Texture) {
        self.stats.live_textures -= 1;
        self.stats.live_bytes -= bytes(size);
        if self.stats.pooled_bytes + bytes(size) <= MAX_POOLED_BYTES {
            self.free.entry(size).or_default().push(texture);
            self.stats.pooled_textures += 1;
            self.stats.pooled_bytes += bytes(size);
        }
    }

    /// Frees every pooled texture now.
    pub fn clear(&mut self) {
        self.free.clear();
        self.stats.pooled_textures = 0;
        self.stats.pooled_bytes = 0;
    }

    /// The counts.
    pub fn stats(&self) -> MemoryStats {
        self.stats
    }
}
