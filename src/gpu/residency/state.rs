//! [`Residency`], the one enum that says where a matrix's values are, and [`Resident`], the
//! record that moves one matrix between those places.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::backend::Format;
use crate::error::{Error, Result};
use crate::gpu::DdMatrix;
use crate::matrix::Matrix;

/// Counts matrix uses, so that the budget moves out the least recently used.
static TICK: AtomicU64 = AtomicU64::new(1);

fn tick() -> u64 {
    TICK.fetch_add(1, Ordering::Relaxed)
}

/// What holds a matrix's values on the GPU: a [`Matrix`] (one float32 texture), a
/// [`DdMatrix`] (a float-float pair), or a fake in the tests. Cloning shares the textures.
pub trait OnGpu: Clone {
    /// An element as the CPU holds it: `f32`, or `f64` for a float-float matrix.
    type Elem: Copy;

    /// How the texture stores the values (float32 but for a float16 upload), which an upload
    /// of a copy keeps.
    fn format(&self) -> Format {
        Format::F32
    }
}

impl OnGpu for Matrix {
    type Elem = f32;

    fn format(&self) -> Format {
        Matrix::format(self)
    }
}

impl OnGpu for DdMatrix {
    type Elem = f64;
}

/// Where a matrix's values are. `T` holds them on the GPU ([`OnGpu`]); `C` is the kept copy,
/// in host memory (in the browser a `Float32Array`, or a `Float64Array` for a float-float
/// matrix; natively a `Vec`).
pub enum Residency<T: OnGpu, C> {
    /// On the GPU in `texture`; the copies, where there are any, hold the same values.
    Gpu {
        /// The texture (or pair).
        texture: T,
        /// Copies of the same values on the CPU.
        copies: Copies<T::Elem, C>,
    },
    /// On the GPU, but `set` has changed the CPU copy since: `texture` is behind `values` until
    /// the next use uploads them.
    Stale {
        /// The texture, behind `values`.
        texture: T,
        /// The CPU copy, with what `set` changed.
        values: Vec<T::Elem>,
    },
    /// On the CPU only: computed there, moved out by the memory budget, or left when its
    /// texture went with a lost GPU. The next GPU use uploads a copy (at least one is held).
    Cpu(Copies<T::Elem, C>),
    /// `free()` was called: any use is an error.
    Freed,
    /// It went with a lost GPU and no copy held its values: any use is an error.
    Lost,
}

/// A matrix's copies on the CPU, each current (the same values as the matrix).
pub struct Copies<E, C> {
    /// A copy in this program's memory that `get` and `set` work on, made by a read-back
    /// (`get`, `set`, the budget moving the matrix out), whatever `keepCopies` says.
    pub values: Option<Vec<E>>,
    /// A copy of what was uploaded or last read back, in host memory, where copies are kept
    /// (`keepCopies`): what brings the matrix back after the GPU is lost.
    pub kept: Option<C>,
}

impl<E, C> Copies<E, C> {
    /// No copy.
    pub fn none() -> Self {
        Copies {
            values: None,
            kept: None,
        }
    }

    /// Whether there is no copy.
    pub fn is_empty(&self) -> bool {
        self.values.is_none() && self.kept.is_none()
    }
}

/// The copy a matrix comes back from: the CPU copy (preferred: it may hold `set` values), else
/// the kept copy.
pub enum Source<'a, E, C> {
    /// The CPU copy.
    Values(&'a [E]),
    /// The kept copy.
    Kept(&'a C),
}

/// One matrix: where its values are, its shape, and what the budget and the copies need.
pub struct Resident<T: OnGpu, C> {
    residency: Residency<T, C>,
    /// Bumped whenever the values change (`set`, an in-place operation, `free`), so that a
    /// read-back begun before is not kept as a copy.
    version: u64,
    /// When the matrix was last used (a [`TICK`]).
    last_use: u64,
    rows: usize,
    cols: usize,
    /// Whether copies of what is uploaded and read back are kept (`keepCopies`).
    keep: bool,
    /// How its texture stores the values, and so an upload of a copy (the last texture's).
    format: Format,
    /// The GPU's generation its texture was made in: a later one means the texture went with
    /// a lost GPU (see [`Resident::catch_up`]).
    generation: u64,
}

impl<T: OnGpu, C> Resident<T, C> {
    /// A `rows x cols` matrix on the GPU in `texture`, with no copy yet; `keep`: whether it keeps
    /// copies of what is uploaded and read back.
    pub fn new(texture: T, rows: usize, cols: usize, keep: bool) -> Self {
        let format = texture.format();
        let copies = Copies::none();
        Self::of(
            Residency::Gpu { texture, copies },
            format,
            (rows, cols),
            keep,
        )
    }

    /// A `rows x cols` matrix of `values` held on the CPU, with no texture yet: its first GPU
    /// use uploads them in `format` (on a software adapter, an upload or a product on the CPU,
    /// [`ProductKernel::Cpu`](crate::gpu::ProductKernel::Cpu)).
    pub fn on_cpu(values: Vec<T::Elem>, shape: (usize, usize), format: Format, keep: bool) -> Self {
        let copies = Copies {
            values: Some(values),
            kept: None,
        };
        Self::of(Residency::Cpu(copies), format, shape, keep)
    }

    /// A new matrix's record: `residency`, unchanged and just used.
    fn of(
        residency: Residency<T, C>,
        format: Format,
        (rows, cols): (usize, usize),
        keep: bool,
    ) -> Self {
        Resident {
            format,
            residency,
            version: 0,
            last_use: tick(),
            rows,
            cols,
            keep,
            generation: 0,
        }
    }

    /// The same, its texture made by the GPU of `generation` (see [`Resident::catch_up`]).
    pub fn made_in(mut self, generation: u64) -> Self {
        self.generation = generation;
        self
    }

    /// Where the GPU is now of a later `generation` (a new one replaced it after a loss): the
    /// texture went with the old one, and [`Resident::restore`] says whether the matrix comes
    /// back from a copy; `None` where it is of this generation already.
    pub fn catch_up(&mut self, generation: u64) -> Option<bool> {
        if self.generation >= generation {
            return None;
        }
        self.generation = generation;
        self.restore()
    }

    /// How its texture stores the values: an upload of a copy stores them so again.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Where its values are.
    pub fn residency(&self) -> &Residency<T, C> {
        &self.residency
    }

    /// Its values' version, for a read-back to hand to [`Resident::keep`] or
    /// [`Resident::hold`] when it is done.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// When it was last used: a later use has a larger number.
    pub fn last_use(&self) -> u64 {
        self.last_use
    }

    /// A clear error once freed or lost.
    pub fn usable(&self) -> Result<()> {
        match self.residency {
            Residency::Freed => Err(Error::Freed),
            Residency::Lost => Err(Error::LostMatrix),
            _ => Ok(()),
        }
    }

    /// The CPU copy's values, where there is one (what `get` and `read` serve without a
    /// read-back).
    pub fn values(&self) -> Option<&[T::Elem]> {
        match &self.residency {
            Residency::Gpu { copies, .. } | Residency::Cpu(copies) => copies.values.as_deref(),
            Residency::Stale { values, .. } => Some(values),
            Residency::Freed | Residency::Lost => None,
        }
    }

    /// The texture for a GPU use (counted as a use, for the budget): the one on the GPU, or a
    /// copy uploaded by `upload(source, rows, cols)` where `set` changed it or it is on the CPU
    /// only. A clear error once freed or lost.
    pub fn texture(
        &mut self,
        upload: impl FnOnce(Source<'_, T::Elem, C>, usize, usize) -> Result<T>,
    ) -> Result<T> {
        self.usable()?;
        self.last_use = tick();
        let (rows, cols) = (self.rows, self.cols);
        let fresh = match &self.residency {
            Residency::Gpu { texture, .. } => return Ok(texture.clone()),
            Residency::Stale { values, .. } => upload(Source::Values(values), rows, cols)?,
            Residency::Cpu(copies) => match (&copies.values, &copies.kept) {
                (Some(values), _) => upload(Source::Values(values), rows, cols)?,
                (None, Some(kept)) => upload(Source::Kept(kept), rows, cols)?,
                (None, None) => return Err(Error::LostMatrix),
            },
            Residency::Freed | Residency::Lost => return Err(Error::LostMatrix),
        };
        let texture = fresh.clone();
        self.update(|residency| match residency {
            Residency::Stale { values, .. } => Residency::Gpu {
                texture,
                copies: Copies {
                    values: Some(values),
                    kept: None,
                },
            },
            Residency::Cpu(copies) => Residency::Gpu { texture, copies },
            other => other,
        });
        Ok(fresh)
    }

    /// Keeps `make()`, a copy of the values just uploaded or read back at `version`, where
    /// copies are kept and none is held (every change drops the kept copy, so one still held
    /// has these values already) and the matrix has not changed since.
    pub fn keep(&mut self, version: u64, make: impl FnOnce() -> C) {
        if !self.keep || version != self.version {
            return;
        }
        if let Residency::Gpu { copies, .. } | Residency::Cpu(copies) = &mut self.residency {
            if copies.kept.is_none() {
                copies.kept = Some(make());
            }
        }
    }

    /// Holds `values`, read back at `version` (for `get`), as the CPU copy, unless it holds one
    /// already; gives them back where the matrix changed since (or went), so that they are
    /// not its values now.
    pub fn hold(&mut self, version: u64, values: Vec<T::Elem>) -> Option<Vec<T::Elem>> {
        if version != self.version {
            return Some(values);
        }
        match &mut self.residency {
            Residency::Gpu { copies, .. } | Residency::Cpu(copies) => {
                copies.values.get_or_insert(values);
                None
            }
            _ => Some(values),
        }
    }

    /// Sets element `index` (row-major) of the CPU copy to `value`: the texture is behind it
    /// until the next use uploads it. Gives back the kept copy this lets go (for the spares).
    /// A clear error once freed or lost, or when the matrix has no CPU copy (it changed on the
    /// GPU after the read-back that made one).
    pub fn set(&mut self, index: usize, value: T::Elem) -> Result<Option<C>> {
        self.usable()?;
        let len = self.values().map(<[_]>::len).ok_or_else(|| {
            Error::Argument(
                "set: the matrix changed on the GPU while its values were read back; set the \
                 element again"
                    .into(),
            )
        })?;
        if index >= len {
            return Err(Error::Argument(format!(
                "element {index} is past the {len} values of this matrix"
            )));
        }
        self.version += 1;
        let mut let_go = None;
        self.update(|residency| match residency {
            Residency::Gpu {
                texture,
                copies:
                    Copies {
                        values: Some(values),
                        kept,
                    },
            } => {
                let_go = kept;
                Residency::Stale { texture, values }
            }
            Residency::Cpu(Copies { values, kept }) => {
                let_go = kept;
                Residency::Cpu(Copies { values, kept: None })
            }
            other => other,
        });
        if let Residency::Stale { values, .. }
        | Residency::Cpu(Copies {
            values: Some(values),
            ..
        }) = &mut self.residency
        {
            values[index] = value;
        }
        Ok(let_go)
    }

    /// An in-place operation replaced the values with `texture`'s: the copies are dropped.
    /// Gives back the kept copy this lets go.
    pub fn change(&mut self, texture: T) -> Option<C> {
        if self.usable().is_err() {
            return None;
        }
        self.version += 1;
        self.format = texture.format();
        let copies = Copies::none();
        kept_of(std::mem::replace(
            &mut self.residency,
            Residency::Gpu { texture, copies },
        ))
    }

    /// `free()`: the texture and the copies go now, and any later use is an error. Gives back
    /// the kept copy this lets go.
    pub fn free(&mut self) -> Option<C> {
        self.version += 1;
        kept_of(std::mem::replace(&mut self.residency, Residency::Freed))
    }

    /// After the GPU was lost and a new one opened: the texture went with the old one. A matrix
    /// with a copy comes back from it on its next use (`Some(true)`); one without is lost for
    /// good (`Some(false)`); a matrix freed or lost before counts as neither (`None`).
    pub fn restore(&mut self) -> Option<bool> {
        let mut restored = None;
        self.update(|residency| match residency {
            Residency::Gpu { copies, .. } if copies.is_empty() => {
                restored = Some(false);
                Residency::Lost
            }
            Residency::Gpu { copies, .. } | Residency::Cpu(copies) => {
                restored = Some(true);
                Residency::Cpu(copies)
            }
            Residency::Stale { values, .. } => {
                restored = Some(true);
                Residency::Cpu(Copies {
                    values: Some(values),
                    kept: None,
                })
            }
            other => other,
        });
        restored
    }

    /// For the budget: the texture of a matrix on the GPU, its version, and whether its values
    /// must be read back before it moves out (it has no CPU copy).
    pub(super) fn evictable(&self) -> Option<(T, u64, bool)> {
        match &self.residency {
            Residency::Gpu { texture, copies } => {
                Some((texture.clone(), self.version, copies.values.is_none()))
            }
            Residency::Stale { texture, .. } => Some((texture.clone(), self.version, false)),
            _ => None,
        }
    }

    /// Moves the matrix to the CPU, with `values` read back at `version` as its CPU copy where it
    /// has none, unless it changed or moved meanwhile or would keep no copy; whether it moved.
    pub(super) fn evict(&mut self, version: u64, values: Option<Vec<T::Elem>>) -> bool {
        let movable = match &self.residency {
            Residency::Gpu { copies, .. } => !copies.is_empty() || values.is_some(),
            Residency::Stale { .. } => true,
            _ => false,
        };
        if !movable || version != self.version {
            return false;
        }
        self.update(|residency| match residency {
            Residency::Gpu { copies, .. } => Residency::Cpu(Copies {
                values: copies.values.or(values),
                kept: copies.kept,
            }),
            Residency::Stale { values, .. } => Residency::Cpu(Copies {
                values: Some(values),
                kept: None,
            }),
            other => other,
        });
        true
    }

    /// Replaces the residency by `f` of it.
    fn update(&mut self, f: impl FnOnce(Residency<T, C>) -> Residency<T, C>) {
        let old = std::mem::replace(&mut self.residency, Residency::Freed);
        self.residency = f(old);
    }
}

/// The kept copy of what `residency` held.
fn kept_of<T: OnGpu, C>(residency: Residency<T, C>) -> Option<C> {
    match residency {
        Residency::Gpu { copies, .. } | Residency::Cpu(copies) => copies.kept,
        _ => None,
    }
}
