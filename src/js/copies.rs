//! The copies that bring a float32 matrix back after a lost GPU (`keepCopies`), in JavaScript
//! memory. By default (`keepCopies: true`) a matrix keeps the very array it was uploaded from,
//! or that `read()` resolved to (or `readInto` filled), not a copy of it: the copy costs
//! nothing, and on the H100 machine a copy into a new array cost as much as the read-back
//! itself (new memory pages at about 1 GB/s). Such an array stays the page's: if the page
//! changes it, the matrix cannot come back from it, so a sample of its elements is kept and
//! checked before it is uploaded again, and a matrix whose array changed is lost rather than
//! brought back with other values. `keepCopies: "copy"` keeps private copies instead (into the
//! spares that freed matrices let go, where one of the length is held).

use std::cell::RefCell;

use js_sys::Float32Array;
use wasm_bindgen::JsValue;

use super::options::option_value;
use crate::error::{Error, Result};
use crate::gpu::residency::{HostCopy, Spares};

/// Which copies matrices keep (option `keepCopies`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keep {
    /// None (`false`).
    None,
    /// The arrays uploaded from and read into, shared with the page (`true`, the default).
    Shared,
    /// Private copies of them (`"copy"`).
    Copied,
}

impl Keep {
    /// The option `keepCopies` of `options`: true (the default), false or "copy".
    pub(super) fn option(options: &JsValue) -> Result<Keep> {
        let v = option_value(options, "keepCopies");
        match (v.as_bool(), v.as_string().as_deref()) {
            _ if v.is_undefined() => Ok(Keep::Shared),
            (Some(true), _) => Ok(Keep::Shared),
            (Some(false), _) => Ok(Keep::None),
            (_, Some("copy")) => Ok(Keep::Copied),
            _ => Err(Error::Argument(
                "option keepCopies must be true, false or \"copy\"".into(),
            )),
        }
    }

    /// Whether copies are kept at all.
    pub(super) fn any(self) -> bool {
        self != Keep::None
    }

    /// The copy to keep of `array`, just uploaded from or read into: `array` itself with a
    /// sample of its elements, or a private copy.
    pub(super) fn of(self, array: &Float32Array) -> Kept {
        match self {
            Keep::Copied => SPARES.with_borrow_mut(|s| s.copy(&Kept::private(array.clone()))),
            _ => Kept {
                sample: Some(sample(array)),
                array: array.clone(),
            },
        }
    }
}

/// How many elements of a shared array are sampled.
const SAMPLES: u32 = 32;

/// A kept copy: a private array, or the page's own with a sample of its elements (index, bits)
/// as they were when it was kept.
pub(super) struct Kept {
    array: Float32Array,
    sample: Option<Vec<(u32, u32)>>,
}

impl Kept {
    fn private(array: Float32Array) -> Kept {
        Kept {
            array,
            sample: None,
        }
    }

    /// The array to upload the matrix again from, or a clear error where the page changed it.
    pub(super) fn array(&self) -> Result<&Float32Array> {
        let changed = (self.sample.iter().flatten())
            .any(|&(i, bits)| self.array.get_index(i).to_bits() != bits);
        if changed {
            return Err(Error::Unsupported(
                "this matrix was lost with the GPU: the array it was uploaded from or read into \
                 has changed since, so it could not come back from it (keep that array \
                 unchanged while the matrix lives, or open the Gpgpu with keepCopies: \"copy\"); \
                 compute it again"
                    .into(),
            ));
        }
        Ok(&self.array)
    }
}

/// Up to [`SAMPLES`] elements of `array`, spread over it (the first and the last among them).
fn sample(array: &Float32Array) -> Vec<(u32, u32)> {
    let n = array.length();
    if n == 0 {
        return Vec::new();
    }
    let count = SAMPLES.min(n);
    (0..count)
        .map(|k| {
            let i = (u64::from(k) * u64::from(n - 1) / u64::from((count - 1).max(1))) as u32;
            (i, array.get_index(i).to_bits())
        })
        .collect()
}

impl HostCopy for Kept {
    fn count(&self) -> usize {
        self.array.length() as usize
    }

    fn bytes(&self) -> u64 {
        u64::from(self.array.byte_length())
    }

    fn overwrite(&mut self, from: &Self) {
        self.array.set(&from.array, 0);
    }

    fn duplicate(&self) -> Self {
        Kept::private(self.array.slice(0, self.array.length()))
    }
}

thread_local! {
    /// The large private copies (`keepCopies: "copy"`) that the page's matrices let go (freed,
    /// changed, set), shared by its Gpgpu objects; `releasePooled()` drops them.
    static SPARES: RefCell<Spares<Kept>> = const { RefCell::new(Spares::new()) };
}

/// Keeps `copy`, which its matrix let go, for a later copy of its length if it is a large
/// private one (a shared array stays the page's).
pub(super) fn let_go(copy: Option<Kept>) {
    let private = copy.filter(|c| c.sample.is_none());
    SPARES.with_borrow_mut(|spares| spares.give(private));
}

/// Bytes of the spare copies held now.
pub(super) fn spare_bytes() -> f64 {
    SPARES.with_borrow(Spares::bytes) as f64
}

/// Drops the spare copies.
pub(super) fn release_spares() {
    SPARES.with_borrow_mut(Spares::clear);
}
