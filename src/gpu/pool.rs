//! [`Pool`]: textures are reused rather than created for every result and temporary.
//!
//! A matrix's texture goes back to its device's pool when the last handle to it drops, and the
//! next matrix of the same texture size takes it from there. The pool counts what is live (held
//! by matrices) and what is pooled (free, kept for reuse), in textures and bytes, and the peak:
//! the most bytes it held at once (live and pooled together, since both are GPU memory).
//! A matrix costs its padded texture, 16 bytes per texel (8 in float16), and nothing more.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use std::any::Any;

use crate::backend::{DynBackend, DynTexture, Format};
use crate::error::Result;

/// Free textures kept for reuse are capped at this many bytes. A texture given back that would
/// pass the cap frees the textures pooled longest until it fits (one larger than the cap is
/// freed itself): the texture just given back is the likeliest to be asked for next. Freeing
/// it instead made every n = 8192 product (C is 256 MiB) create its texture anew while a few
/// small textures sat in the pool: 31 TFLOPS on an H100 against 43
/// (`bench/records/h100/products/overhead-2026-11-26.log`).
pub const MAX_POOLED_BYTES: usize = 256 << 20;

/// Live and pooled textures of one device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Textures held by matrices.
    pub live_textures: usize,
    /// Their bytes (16 per texel, 8 in float16).
    pub live_bytes: usize,
    /// Free textures kept for reuse.
    pub pooled_textures: usize,
    /// Their bytes.
    pub pooled_bytes: usize,
    /// The most bytes held at once (live plus pooled) since the device opened or since
    /// [`Gpu::reset_peak`](crate::gpu::Gpu::reset_peak).
    pub peak_bytes: usize,
}

impl MemoryStats {
    /// Bytes held now: live plus pooled.
    pub fn held_bytes(&self) -> usize {
        self.live_bytes + self.pooled_bytes
    }
}

/// A texture's width, height and format: which textures can stand in for each other.
type Size = (usize, usize, Format);

/// The free textures of one device, with their sizes, and the counts.
pub struct Pool {
    /// The free textures in the order they were given back, the oldest first.
    free: Vec<(Size, DynTexture)>,
    stats: MemoryStats,
    /// Bumped by [`Pool::restart`] when the backend is replaced: textures lent before belong to
    /// the lost one.
    generation: u32,
}

/// A texture on loan from a pool; it goes back when dropped.
pub struct Pooled {
    texture: Option<DynTexture>,
    size: Size,
    pool: Weak<RefCell<Pool>>,
    /// The pool's generation when it was lent.
    generation: u32,
}

impl Pooled {
    /// How the texture stores its values.
    pub fn format(&self) -> Format {
        self.size.2
    }

    /// The texture.
    pub fn texture(&self) -> &dyn Any {
        self.texture
            .as_deref()
            .expect("a pooled texture is only taken in drop")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let (Some(texture), Some(pool)) = (self.texture.take(), self.pool.upgrade()) {
            let mut pool = pool.borrow_mut();
            if pool.lent(self) {
                pool.give_back(self.size, texture);
            }
        }
    }
}

/// The bytes of a `w x h` texture of `format`.
fn bytes((w, h, format): Size) -> usize {
    format.texel_bytes() * w * h
}

impl Pool {
    /// An empty pool, shared by a device and the textures it lends.
    pub fn new() -> Rc<RefCell<Self>> {
        Rc::new(RefCell::new(Pool {
            free: Vec::new(),
            stats: MemoryStats::default(),
            generation: 0,
        }))
    }

    /// A texture of `width x height` texels of `format`: a pooled one if there is one, else a
    /// new one.
    pub fn take(
        pool: &Rc<RefCell<Self>>,
        backend: &dyn DynBackend,
        (width, height): (usize, usize),
        format: Format,
    ) -> Result<Pooled> {
        let size = (width, height, format);
        let reused = {
            let mut p = pool.borrow_mut();
            // The newest of this size.
            let i = p.free.iter().rposition(|(s, _)| *s == size);
            let t = i.map(|i| p.free.remove(i).1);
            if t.is_some() {
                p.stats.pooled_textures -= 1;
                p.stats.pooled_bytes -= bytes(size);
            }
            t
        };
        let texture = match reused {
            Some(t) => t,
            None => backend.create_texture(width, height, format)?,
        };
        let mut p = pool.borrow_mut();
        p.stats.live_textures += 1;
        p.stats.live_bytes += bytes(size);
        p.stats.peak_bytes = p.stats.peak_bytes.max(p.stats.held_bytes());
        Ok(Pooled {
            texture: Some(texture),
            size,
            pool: Rc::downgrade(pool),
            generation: p.generation,
        })
    }

    fn give_back(&mut self, size: Size, texture: DynTexture) {
        self.stats.live_textures -= 1;
        self.stats.live_bytes -= bytes(size);
        if bytes(size) > MAX_POOLED_BYTES {
            return;
        }
        while self.stats.pooled_bytes + bytes(size) > MAX_POOLED_BYTES {
            let (old, _) = self.free.remove(0);
            self.stats.pooled_textures -= 1;
            self.stats.pooled_bytes -= bytes(old);
        }
        self.free.push((size, texture));
        self.stats.pooled_textures += 1;
        self.stats.pooled_bytes += bytes(size);
    }

    /// Whether `texture` was lent by this pool since its last [`Pool::restart`].
    pub fn lent(&self, texture: &Pooled) -> bool {
        texture.generation == self.generation
    }

    /// Forgets every texture, lent or pooled, when the backend they belong to was lost and
    /// replaced: the counts start from zero (the peak stays) and textures lent before are
    /// dropped, not pooled, when their matrices go.
    pub fn restart(&mut self) {
        self.free.clear();
        let peak = self.stats.peak_bytes;
        self.stats = MemoryStats {
            peak_bytes: peak,
            ..MemoryStats::default()
        };
        self.generation += 1;
    }

    /// Frees every pooled texture now.
    pub fn clear(&mut self) {
        self.free.clear();
        self.stats.pooled_textures = 0;
        self.stats.pooled_bytes = 0;
    }

    /// Starts a new peak from what is held now (live plus pooled).
    pub fn reset_peak(&mut self) {
        self.stats.peak_bytes = self.stats.held_bytes();
    }

    /// The counts.
    pub fn stats(&self) -> MemoryStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Backend, BackendKind, Capabilities, Values};
    use crate::kernels::Program;
    use crate::layout::Layout;
    use std::cell::Cell;

    /// A backend whose textures are their sizes; counts the textures it really created.
    struct Fake {
        caps: Capabilities,
        created: Cell<usize>,
    }

    impl Backend for Fake {
        type Texture = (usize, usize);
        fn capabilities(&self) -> &Capabilities {
            &self.caps
        }
        fn create_texture(&self, width: usize, height: usize, _: Format) -> Result<(usize, usize)> {
            self.created.set(self.created.get() + 1);
            Ok((width, height))
        }
        fn write(&self, _: &(usize, usize), _: Layout, _: &[f32]) -> Result<()> {
            Ok(())
        }
        fn lost(&self) -> Option<String> {
            None
        }
        fn lose(&self) {}
        fn run(&self, _: &Program, _: &[&(usize, usize)], _: &[&(usize, usize)]) -> Result<()> {
            Ok(())
        }
        fn copy_texels(
            &self,
            _: &(usize, usize),
            _: (usize, usize),
            _: &(usize, usize),
            _: (usize, usize),
            _: (usize, usize),
        ) -> Result<()> {
            Ok(())
        }
        async fn read(&self, _: &(usize, usize), l: Layout) -> Result<Values> {
            Ok(Values::Here(vec![0.0; l.rows * l.cols]))
        }
        async fn finish(&self) -> Result<()> {
            Ok(())
        }
    }

    fn fake() -> Fake {
        Fake {
            caps: Capabilities {
                backend: BackendKind::WebGl2,
                adapter: "fake".into(),
                max_texture_size: 4096,
                max_render_targets: 8,
                max_workgroup_storage: 0,
                tensor: false,
                software: true,
                compute: false,
            },
            created: Cell::new(0),
        }
    }

    #[test]
    fn a_texture_costs_its_texels_and_the_peak_follows_live_plus_pooled() {
        let backend = fake();
        let pool = Pool::new();
        let a = Pool::take(&pool, &backend, (7, 4), Format::F32).unwrap();
        let b = Pool::take(&pool, &backend, (3, 1), Format::F32).unwrap();
        let s = pool.borrow().stats();
        assert_eq!((s.live_textures, s.live_bytes), (2, 16 * 7 * 4 + 16 * 3));
        assert_eq!((s.pooled_bytes, s.peak_bytes), (0, 16 * 31));
        drop(a);
        let s = pool.borrow().stats();
        assert_eq!((s.live_bytes, s.pooled_bytes, s.peak_bytes), (48, 448, 496));
        // Taking the pooled texture again costs nothing new: same peak, no new texture.
        let a = Pool::take(&pool, &backend, (7, 4), Format::F32).unwrap();
        assert_eq!(backend.created.get(), 2);
        assert_eq!(pool.borrow().stats().peak_bytes, 496);
        // A new size while the old one is pooled: the peak counts both.
        drop(a);
        let c = Pool::take(&pool, &backend, (10, 10), Format::F32).unwrap();
        let s = pool.borrow().stats();
        assert_eq!(
            (s.live_bytes, s.pooled_bytes, s.peak_bytes),
            (48 + 1600, 448, 48 + 1600 + 448)
        );
        // After a reset the peak starts from what is held now; clearing the pool lowers that.
        pool.borrow_mut().clear();
        pool.borrow_mut().reset_peak();
        assert_eq!(pool.borrow().stats().peak_bytes, 1648);
        drop((b, c));
        let s = pool.borrow().stats();
        assert_eq!(
            (s.live_bytes, s.pooled_bytes, s.peak_bytes, s.held_bytes()),
            (0, 1648, 1648, 1648)
        );
    }

    #[test]
    fn a_float16_texture_costs_half_and_stands_in_only_for_float16() {
        let backend = fake();
        let pool = Pool::new();
        drop(Pool::take(&pool, &backend, (8, 2), Format::F16).unwrap());
        assert_eq!(pool.borrow().stats().pooled_bytes, 8 * 8 * 2);
        let f32 = Pool::take(&pool, &backend, (8, 2), Format::F32).unwrap();
        assert_eq!(
            backend.created.get(),
            2,
            "a float16 texture is no float32 one"
        );
        let f16 = Pool::take(&pool, &backend, (8, 2), Format::F16).unwrap();
        assert_eq!(
            backend.created.get(),
            2,
            "the pooled float16 texture is reused"
        );
        assert_eq!(pool.borrow().stats().live_bytes, 16 * 16 + 8 * 16);
        drop((f32, f16));
    }

    #[test]
    fn a_texture_given_back_past_the_cap_frees_the_oldest_pooled() {
        let backend = fake();
        let pool = Pool::new();
        // 16 MiB each: the 17th given back does not fit in the 256 MiB cap beside the others.
        let side = 1024;
        let all: Vec<_> = (0..17)
            .map(|_| Pool::take(&pool, &backend, (side, side), Format::F32).unwrap())
            .collect();
        drop(all);
        let s = pool.borrow().stats();
        assert_eq!((s.live_textures, s.pooled_textures), (0, 16));
        assert_eq!(s.pooled_bytes, MAX_POOLED_BYTES);
        assert_eq!(s.peak_bytes, 17 * 16 * side * side);
        // A small texture, then one of the whole cap: the cap's texture is kept, the others go.
        drop(Pool::take(&pool, &backend, (2, 2), Format::F32).unwrap());
        let big = Pool::take(&pool, &backend, (4096, 4096), Format::F32).unwrap();
        drop(big);
        let s = pool.borrow().stats();
        assert_eq!((s.pooled_textures, s.pooled_bytes), (1, MAX_POOLED_BYTES));
        let created = backend.created.get();
        drop(Pool::take(&pool, &backend, (4096, 4096), Format::F32).unwrap());
        assert_eq!(
            backend.created.get(),
            created,
            "the large texture is reused"
        );
        // One larger than the cap is freed itself.
        drop(Pool::take(&pool, &backend, (4096, 4097), Format::F32).unwrap());
        assert_eq!(pool.borrow().stats().pooled_bytes, MAX_POOLED_BYTES);
    }

    #[test]
    fn after_a_restart_textures_lent_before_are_neither_counted_nor_pooled() {
        let backend = fake();
        let pool = Pool::new();
        let (old, pooled) = (
            Pool::take(&pool, &backend, (4, 4), Format::F32).unwrap(),
            Pool::take(&pool, &backend, (2, 2), Format::F32).unwrap(),
        );
        drop(pooled);
        pool.borrow_mut().restart();
        assert!(!pool.borrow().lent(&old));
        assert_eq!(pool.borrow().stats().held_bytes(), 0);
        let new = Pool::take(&pool, &backend, (2, 2), Format::F32).unwrap();
        assert_eq!(
            backend.created.get(),
            3,
            "the pooled texture of the lost backend went"
        );
        assert!(pool.borrow().lent(&new));
        drop(old);
        let s = pool.borrow().stats();
        assert_eq!((s.live_textures, s.pooled_textures), (1, 0));
        drop(new);
        assert_eq!(pool.borrow().stats().pooled_textures, 1);
    }
}
