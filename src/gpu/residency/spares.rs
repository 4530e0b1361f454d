//! [`Spares`]: large kept copies that their matrices let go (freed, changed, set), each taking
//! the next copy of its length. A new array's fresh pages cost more than the copy into them
//! (64 MiB: about 44 ms of page faults on the H100 machine, then 12 ms of copying); an array
//! used before costs the copy alone.

/// Copies of at least this many bytes are kept for reuse once their matrix lets them go.
pub const SPARE_FROM: u64 = 1 << 20;

/// The most bytes of such copies kept (the oldest go first).
pub const SPARE_BYTES: u64 = 256 << 20;

/// A copy of a matrix's values in host memory that [`Spares`] can recycle: a `Float32Array`
/// in the browser (implemented in `js/`), a `Vec<f32>` natively.
pub trait HostCopy {
    /// How many values it holds.
    fn count(&self) -> usize;
    /// How many bytes it holds.
    fn bytes(&self) -> u64;
    /// Overwrites it with `from`, of the same length.
    fn overwrite(&mut self, from: &Self);
    /// A new copy of it.
    fn duplicate(&self) -> Self;
}

impl HostCopy for Vec<f32> {
    fn count(&self) -> usize {
        self.len()
    }

    fn bytes(&self) -> u64 {
        (4 * self.len()) as u64
    }

    fn overwrite(&mut self, from: &Self) {
        self.copy_from_slice(from);
    }

    fn duplicate(&self) -> Self {
        self.clone()
    }
}

/// Copies let go, oldest first, kept to take the next copies of their lengths: those of at
/// least `from` bytes, `cap` bytes in all.
pub struct Spares<C> {
    copies: Vec<C>,
    from: u64,
    cap: u64,
}

impl<C: HostCopy> Spares<C> {
    /// No spares yet; copies of [`SPARE_FROM`] bytes or more kept, [`SPARE_BYTES`] in all.
    pub const fn new() -> Self {
        Spares::with_limits(SPARE_FROM, SPARE_BYTES)
    }

    /// No spares yet; copies of `from` bytes or more kept, `cap` bytes in all.
    pub const fn with_limits(from: u64, cap: u64) -> Self {
        Spares {
            copies: Vec::new(),
            from,
            cap,
        }
    }

    /// A copy of `values`: written into a spare of its length where there is one, else new.
    pub fn copy(&mut self, values: &C) -> C {
        let n = values.count();
        match self.copies.iter().position(|c| c.count() == n) {
            Some(i) => {
                let mut spare = self.copies.swap_remove(i);
                spare.overwrite(values);
                spare
            }
            None => values.duplicate(),
        }
    }

    /// Keeps `copy`, which its matrix let go, for a later copy of its length if it is large
    /// enough; the oldest spares go while they hold more than the cap.
    pub fn give(&mut self, copy: Option<C>) {
        let Some(copy) = copy.filter(|c| c.bytes() >= self.from) else {
            return;
        };
        self.copies.push(copy);
        while self.bytes() > self.cap {
            self.copies.remove(0);
        }
    }

    /// Bytes of the spares held now.
    pub fn bytes(&self) -> u64 {
        self.copies.iter().map(HostCopy::bytes).sum()
    }

    /// Drops the spares.
    pub fn clear(&mut self) {
        self.copies.clear();
    }
}

impl<C: HostCopy> Default for Spares<C> {
    fn default() -> Self {
        Spares::new()
    }
}
