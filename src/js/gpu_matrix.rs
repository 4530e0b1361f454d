//! `GpuMatrix`: a matrix whose data stays on the GPU until `read()`, with a CPU copy for
//! `get`/`set` (seed 004's controller: one read-back, then served from the copy until the GPU
//! side changes; one upload before the next GPU use), and the registry that lets a `Gpgpu` find
//! its matrices in JavaScript arrays.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use js_sys::{Float32Array, Float64Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::error::Error;
use crate::gpu::ops;
use crate::gpu::{DdMatrix, Gpu};
use crate::kernels::Expr;
use crate::matrix::Matrix;

/// A GPU's matrices by id, so that arrays of matrices can be passed from JS.
pub(super) type Registry = Rc<RefCell<HashMap<u32, Weak<RefCell<Slot>>>>>;

static NEXT_MATRIX_ID: AtomicU32 = AtomicU32::new(1);

/// Counts matrix uses, so that the budget evicts the least recently used.
static TICK: AtomicU64 = AtomicU64::new(1);

/// Copies of at least this many bytes are kept for reuse once their matrix lets them go.
const SPARE_FROM: u32 = 1 << 20;

/// The most bytes of such copies kept (the oldest go first).
const SPARE_BYTES: u64 = 256 << 20;

thread_local! {
    /// Large copies (`keepCopies`) that their matrices let go (freed, changed, set), each
    /// taking the next copy of its length: a new array's fresh pages cost more than the copy
    /// into them (64 MiB: about 44 ms of page faults on the H100 machine, then 12 ms of
    /// copying), an array used before costs the copy alone. `releasePooled()` drops them.
    static SPARES: RefCell<Vec<Float32Array>> = const { RefCell::new(Vec::new()) };
}

/// A copy of `values`, into a spare of the same length where there is one.
fn copy_of(values: &Float32Array) -> Float32Array {
    let n = values.length();
    let spare = SPARES.with_borrow_mut(|spares| {
        let i = spares.iter().position(|a| a.length() == n)?;
        Some(spares.swap_remove(i))
    });
    match spare {
        Some(array) => {
            array.set(values, 0);
            array
        }
        None => values.slice(0, n),
    }
}

/// Keeps `copy`, which its matrix let go, for a later copy of its length if it is large.
fn let_go(copy: Option<Float32Array>) {
    let Some(copy) = copy.filter(|c| c.byte_length() >= SPARE_FROM) else {
        return;
    };
    SPARES.with_borrow_mut(|spares| {
        spares.push(copy);
        let bytes =
            |s: &Vec<Float32Array>| s.iter().map(|a| u64::from(a.byte_length())).sum::<u64>();
        while bytes(spares) > SPARE_BYTES {
            spares.remove(0);
        }
    });
}

/// Bytes of the spare copies held now.
pub(super) fn spare_bytes() -> f64 {
    SPARES.with_borrow(|s| s.iter().map(|a| f64::from(a.byte_length())).sum())
}

/// Drops the spare copies.
pub(super) fn release_spares() {
    SPARES.with_borrow_mut(Vec::clear);
}

/// Where a GpuMatrix keeps its data.
pub(super) struct Slot {
    /// The texture: `None` once freed, or while evicted to the CPU copy by the memory budget.
    pub(super) gpu: Option<Matrix>,
    /// A row-major CPU copy, made by `get`, `set` and eviction; valid until the GPU side
    /// changes.
    pub(super) cpu: Option<Vec<f32>>,
    /// The copy holds values the texture lacks (a `set` since the last upload).
    dirty: bool,
    /// Bumped whenever the texture's contents change on the GPU, so that a read-back begun
    /// before is not kept as the copy.
    pub(super) version: u64,
    /// `free()` was called.
    freed: bool,
    /// When the matrix was last used (a [`TICK`]).
    pub(super) last_use: u64,
    /// Shape, for the upload that brings an evicted matrix back.
    rows: usize,
    cols: usize,
    /// Whether to keep a `backup` of what is uploaded and read back (`Gpgpu.create`'s
    /// `keepCopies`).
    keep: bool,
    /// A copy in JavaScript memory of what was uploaded or last read back, valid until the GPU
    /// side changes: what brings the matrix back after the GPU is lost.
    backup: Option<Float32Array>,
    /// The matrix went with a lost GPU and nothing held its values.
    lost: bool,
    /// A float-float matrix (`uploadFloat64`, or an operation on such): its `hi` and `lo`
    /// textures live in `pair` (`gpu`, `cpu` and `backup` stay empty), its copy in
    /// `float64_backup`. Nothing changes a float-float matrix in place, so the copy stays valid.
    float_float: bool,
    /// The float-float pair; `None` once freed, lost, or gone with the GPU until its copy
    /// brings it back.
    pair: Option<DdMatrix>,
    /// Where copies are kept: the float64 values of a float-float matrix as uploaded or last
    /// read back, in JavaScript memory, what brings it back after the GPU is lost.
    float64_backup: Option<Float64Array>,
}

/// What a float32 operation says of a float-float operand.
const FLOAT32_ONLY: &str = "this operation takes float32 matrices, and a float-float one (from \
    uploadFloat64) was given: float-float matrices have readFloat64, readInto, matmul, add, sub, \
    scale, dot, normSquared, mulVec, cg, refine and free";

impl Slot {
    /// The matrix for a GPU operation: the texture, first brought up to date by an upload of
    /// the copy where `set` changed it or the budget evicted it.
    pub(super) fn current(&mut self, gpu: &Gpu) -> Result<Matrix, Error> {
        if self.freed {
            return Err(Error::Freed);
        }
        if self.float_float {
            return Err(Error::Argument(FLOAT32_ONLY.into()));
        }
        if self.lost {
            return Err(Error::LostMatrix);
        }
        self.last_use = TICK.fetch_add(1, Ordering::Relaxed);
        let fresh = match (&self.gpu, &self.cpu, &self.backup) {
            (Some(m), _, _) if !self.dirty => return Ok(m.clone()),
            (_, Some(copy), _) => gpu.upload(copy, self.rows, self.cols)?,
            (None, None, Some(backup)) => gpu.upload_js(backup, self.rows, self.cols)?,
            _ => return Err(Error::Freed),
        };
        self.gpu = Some(fresh.clone());
        self.dirty = false;
        Ok(fresh)
    }

    /// The float-float pair of a float-float matrix, first uploaded again from its copy after
    /// a lost GPU, or a clear error (freed, lost, float32).
    pub(super) fn current_pair(&mut self, gpu: &Gpu) -> Result<DdMatrix, Error> {
        if self.freed {
            return Err(Error::Freed);
        }
        if self.lost {
            return Err(Error::LostMatrix);
        }
        self.last_use = TICK.fetch_add(1, Ordering::Relaxed);
        if let (None, Some(copy)) = (&self.pair, &self.float64_backup) {
            self.pair = Some(
                gpu.float_float()
                    .upload(&copy.to_vec(), self.rows, self.cols)?,
            );
        }
        self.pair.clone().ok_or_else(|| {
            Error::Argument(
                "a float32 matrix was given where this operation takes float-float ones (from \
                 uploadFloat64): float-float and float32 matrices do not mix"
                    .into(),
            )
        })
    }

    /// Keeps a copy of `values` (just uploaded or read back, unchanged since `version`) to
    /// restore the matrix from if the GPU is lost, where copies are kept and there is none:
    /// every change drops the copy, so one still held has these values already.
    pub(super) fn back_up(&mut self, values: &Float32Array, version: u64) {
        if self.keep && self.version == version && !self.freed && self.backup.is_none() {
            self.backup = Some(copy_of(values));
        }
    }

    /// Keeps a copy of a float-float matrix's float64 `values` (uploaded or read back), where
    /// copies are kept.
    pub(super) fn back_up_float64(&mut self, values: &[f64]) {
        if self.keep && self.float_float && !self.freed {
            self.float64_backup = Some(Float64Array::from(values));
        }
    }

    /// After [`Gpu::restore`]: the texture went with the lost GPU. A matrix with a copy on the
    /// CPU comes back from it on its next use (`Some(true)`); one without is lost for good
    /// (`Some(false)`); a freed matrix counts as neither (`None`).
    pub(super) fn restore(&mut self) -> Option<bool> {
        if self.freed || self.lost {
            return None;
        }
        if self.float_float {
            let had_textures = self.pair.take().is_some();
            if self.float64_backup.is_some() {
                return Some(true);
            }
            self.lost = had_textures;
            return had_textures.then_some(false);
        }
        let had_texture = self.gpu.take().is_some();
        if self.cpu.is_some() || self.backup.is_some() {
            Some(true)
        } else {
            self.lost = had_texture;
            had_texture.then_some(false)
        }
    }
}

/// A matrix whose data stays on the GPU until `read()` (float32) or `readFloat64()`. `free()`,
/// or the end of a `using` block (`[Symbol.dispose]`), frees its texture now; any later use of
/// the matrix is then a clear error.
#[wasm_bindgen]
pub struct GpuMatrix {
    gpu: Rc<Gpu>,
    id: u32,
    rows: usize,
    cols: usize,
    matrix: Rc<RefCell<Slot>>,
}

#[wasm_bindgen]
impl GpuMatrix {
    /// Number of rows.
    #[wasm_bindgen(getter)]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[wasm_bindgen(getter)]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Whether this is a float-float matrix (hi + lo, about 48 bits; made by `uploadFloat64`
    /// or an operation on such), read back by `readFloat64()`.
    #[wasm_bindgen(getter, js_name = floatFloat)]
    pub fn float_float(&self) -> bool {
        self.matrix.borrow().float_float
    }

    /// A number that identifies this matrix within its Gpgpu.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Reads a float32 matrix back: a Float32Array of exactly rows * cols values, row-major
    /// (from the CPU copy where `get` or `set` made one, without a read-back). A float-float
    /// matrix rejects: its values need `readFloat64()`.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float32Array>")]
    pub fn read(&self) -> Promise {
        let values = self.read_float32();
        future_to_promise(async move { Ok(values.await?.into()) })
    }

    /// Reads the matrix back as float64: a Float64Array of exactly rows * cols values,
    /// row-major: hi + lo of a float-float matrix (two read-backs, about 48 bits), or the
    /// float32 values of any other, each exactly as read (what `read()` gives, widened).
    #[wasm_bindgen(js_name = readFloat64, unchecked_return_type = "Promise<Float64Array>")]
    pub fn read_float64(&self) -> Promise {
        let (gpu, slot) = (self.gpu.clone(), self.matrix.clone());
        if !slot.borrow().float_float {
            let values = self.read_float32();
            return future_to_promise(async move {
                Ok(Float64Array::new(&values.await?.into()).into())
            });
        }
        let pair = slot.borrow_mut().current_pair(&gpu);
        future_to_promise(async move {
            let values = gpu.float_float().read(&pair?).await?;
            slot.borrow_mut().back_up_float64(&values);
            Ok(Float64Array::from(values.as_slice()).into())
        })
    }

    /// Reads the matrix back into `out`, an array of exactly rows * cols values that the page
    /// keeps (a Float32Array; a Float64Array for a float-float matrix), and resolves to `out`:
    /// the values of `read()` (`readFloat64()`), without a new array each time. A new array's
    /// memory costs as much as the read-back itself (64 MiB: about 44 ms of fresh pages on the
    /// H100 machine); a page that reads the same matrix every frame or every step keeps one.
    /// (Typed with one overload per kind in `mod.rs`'s TypeScript section.)
    #[wasm_bindgen(js_name = readInto, skip_typescript)]
    pub fn read_into(&self, out: JsValue) -> Promise {
        let (gpu, slot) = (self.gpu.clone(), self.matrix.clone());
        let n = self.rows * self.cols;
        let wrong = |kind: &str| {
            Error::Argument(format!(
                "readInto takes a {kind} of {n} values for this {}x{} matrix{}",
                self.rows,
                self.cols,
                if kind == "Float64Array" {
                    " (float-float)"
                } else {
                    ""
                }
            ))
        };
        if slot.borrow().float_float {
            let pair = slot.borrow_mut().current_pair(&gpu);
            let out = out.dyn_into::<Float64Array>().ok();
            let out = out
                .filter(|a| a.length() as usize == n)
                .ok_or(wrong("Float64Array"));
            return future_to_promise(async move {
                let (out, pair) = (out?, pair?);
                let values = gpu.float_float().read(&pair).await?;
                slot.borrow_mut().back_up_float64(&values);
                out.copy_from(&values);
                Ok(out.into())
            });
        }
        let out = out.dyn_into::<Float32Array>().ok();
        let out = out
            .filter(|a| a.length() as usize == n)
            .ok_or(wrong("Float32Array"));
        // From the CPU copy where there is one: copied into `out` now, not cloned first.
        let (copied, version) = {
            let s = slot.borrow();
            let copied = match (&out, &s.cpu) {
                (Ok(out), Some(copy)) => {
                    out.copy_from(copy);
                    true
                }
                _ => false,
            };
            (copied, s.version)
        };
        let matrix = self.matrix();
        future_to_promise(async move {
            let out = out?;
            if copied {
                return Ok(out.into());
            }
            gpu.read_js(&matrix?, &out).await?;
            slot.borrow_mut().back_up(&out, version);
            Ok(out.into())
        })
    }

    /// The element at row `i`, column `j`: the first call reads the matrix back into a CPU
    /// copy, later ones are served from it until the GPU side changes (an in-place operation).
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn get(&self, i: f64, j: f64) -> Promise {
        let (index, copy) = (self.index(i, j), self.copy());
        future_to_promise(async move {
            let index = index?;
            Ok(copy.await?[index].into())
        })
    }

    /// Sets the element at row `i`, column `j` to `value` in the CPU copy (made by one read-back
    /// if there is none); the texture is brought up to date by one upload before the matrix's
    /// next GPU use, however many elements were set.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn set(&self, i: f64, j: f64, value: f32) -> Promise {
        let (index, copy, slot) = (self.index(i, j), self.copy(), self.matrix.clone());
        future_to_promise(async move {
            let index = index?;
            copy.await?;
            let mut slot = slot.borrow_mut();
            let values = slot.cpu.as_mut().ok_or(Error::Freed)?;
            values[index] = value;
            slot.dirty = true;
            let_go(slot.backup.take());
            Ok(JsValue::UNDEFINED)
        })
    }

    /// `this += b`.
    #[wasm_bindgen(js_name = addAssign)]
    pub fn add_assign(&self, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add(), &[b])
    }

    /// `this *= c` for a number c.
    #[wasm_bindgen(js_name = scaleMut)]
    pub fn scale_mut(&self, c: f32) -> Result<(), JsValue> {
        self.update(ops::scale(super::options::factor(c)?), &[])
    }

    /// `this += b * c` for a number c (seed 000's `mad(b, c)`).
    #[wasm_bindgen(js_name = addScaledMut)]
    pub fn add_scaled_mut(&self, b: &GpuMatrix, c: f32) -> Result<(), JsValue> {
        self.update(ops::add_scaled(super::options::factor(c)?), &[b])
    }

    /// `this += a .* b` (seed 000's `mad(a, b)`).
    #[wasm_bindgen(js_name = addComponentMulMut)]
    pub fn add_component_mul_mut(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add_component_mul(), &[a, b])
    }

    /// Frees the GPU texture (and the CPU copy) now; any later use of this matrix is an error.
    /// (wasm-bindgen declares `free()` and `[Symbol.dispose]()`, which calls this, for every
    /// class: this one is left out of the TypeScript so that it is declared once.)
    #[wasm_bindgen(js_name = free, skip_typescript)]
    pub fn release(&self) {
        let mut slot = self.matrix.borrow_mut();
        let_go(slot.backup.take());
        (slot.gpu, slot.cpu, slot.freed) = (None, None, true);
        (slot.pair, slot.float64_backup) = (None, None);
        slot.version += 1;
    }
}

impl GpuMatrix {
    /// The float32 values, as `read()` resolves to them: from the CPU copy where there is one
    /// (copied into the array now, not cloned first), else read back (and kept as the copy
    /// that restores the matrix, where copies are kept); a float-float matrix is an error.
    fn read_float32(&self) -> impl std::future::Future<Output = Result<Float32Array, Error>> {
        let (gpu, slot) = (self.gpu.clone(), self.matrix.clone());
        let (copy, version, float_float) = {
            let s = slot.borrow();
            let copy = s.cpu.as_deref().map(Float32Array::from);
            (copy, s.version, s.float_float)
        };
        let matrix = self.matrix();
        async move {
            if float_float {
                return Err(Error::Argument(
                    "read() gives float32 values, and this is a float-float matrix: read it with \
                     readFloat64() (a Float64Array of hi + lo)"
                        .into(),
                ));
            }
            if let Some(copy) = copy {
                return Ok(copy);
            }
            let values = gpu.read_values(&matrix?).await?.into_js();
            slot.borrow_mut().back_up(&values, version);
            Ok(values)
        }
    }

    pub(super) fn matrix(&self) -> Result<Matrix, Error> {
        self.matrix.borrow_mut().current(&self.gpu)
    }

    /// The float-float pair of this matrix, or a clear error for a float32 one.
    pub(super) fn pair(&self) -> Result<DdMatrix, Error> {
        self.matrix.borrow_mut().current_pair(&self.gpu)
    }

    /// Keeps a copy of `values`, just uploaded into this float-float matrix.
    pub(super) fn back_up_float64(&self, values: &[f64]) {
        self.matrix.borrow_mut().back_up_float64(values);
    }

    /// Keeps a copy of `data`, just uploaded into this matrix (see [`Slot::back_up`]).
    pub(super) fn back_up(&self, data: &Float32Array) {
        let mut slot = self.matrix.borrow_mut();
        let version = slot.version;
        slot.back_up(data, version);
    }

    /// The row-major index of (i, j), or a clear error.
    fn index(&self, i: f64, j: f64) -> Result<usize, Error> {
        let whole = |x: f64, n: usize| x.fract() == 0.0 && x >= 0.0 && x < n as f64;
        if whole(i, self.rows) && whole(j, self.cols) {
            Ok(i as usize * self.cols + j as usize)
        } else {
            Err(Error::Argument(format!(
                "({i}, {j}) is not an element of this {}x{} matrix: rows 0..{}, columns 0..{}",
                self.rows, self.cols, self.rows, self.cols
            )))
        }
    }

    /// The CPU copy, made by one read-back if there is none (kept unless the GPU side changed
    /// meanwhile).
    fn copy(&self) -> impl std::future::Future<Output = Result<Vec<f32>, Error>> {
        let (gpu, slot) = (self.gpu.clone(), self.matrix.clone());
        async move {
            let (matrix, version) = {
                let s = slot.borrow();
                if s.freed {
                    return Err(Error::Freed);
                }
                if s.float_float {
                    return Err(Error::Argument(
                        "get and set take float32 matrices: readFloat64() a float-float one".into(),
                    ));
                }
                if let Some(copy) = &s.cpu {
                    return Ok(copy.clone());
                }
                (s.gpu.clone().ok_or(Error::Freed)?, s.version)
            };
            let values = gpu.read(&matrix).await?;
            let mut s = slot.borrow_mut();
            if s.version == version && s.cpu.is_none() {
                s.cpu = Some(values.clone());
            }
            Ok(values)
        }
    }

    /// `this = expr(this, others...)`, replacing this matrix's texture.
    fn update(&self, expr: Expr, others: &[&GpuMatrix]) -> Result<(), JsValue> {
        let others = others
            .iter()
            .map(|m| m.matrix())
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Matrix> = others.iter().collect();
        let mut this = self.matrix()?;
        self.gpu.map_mut(&expr, &mut this, &refs)?;
        let mut slot = self.matrix.borrow_mut();
        let_go(slot.backup.take());
        (slot.gpu, slot.cpu, slot.dirty) = (Some(this), None, false);
        slot.version += 1;
        Ok(())
    }
}

/// Makes a GpuMatrix of `m` and records it in `registry`; `keep`: whether it keeps a copy of
/// what is uploaded to it and read back from it.
pub(super) fn wrap_matrix(gpu: &Rc<Gpu>, registry: &Registry, m: Matrix, keep: bool) -> GpuMatrix {
    let (rows, cols) = (m.rows(), m.cols());
    wrap_slot(gpu, registry, slot(Some(m), None, rows, cols, keep))
}

/// Makes a GpuMatrix of the float-float matrix `m` and records it in `registry` (so that a
/// float32 operation given it says why it cannot take it); `keep`: whether it keeps a copy of
/// what is uploaded to it and read back from it.
pub(super) fn wrap_float_float(
    gpu: &Rc<Gpu>,
    registry: &Registry,
    m: DdMatrix,
    keep: bool,
) -> GpuMatrix {
    let (rows, cols) = (m.rows(), m.cols());
    wrap_slot(gpu, registry, slot(None, Some(m), rows, cols, keep))
}

/// A fresh slot holding a float32 matrix or a float-float pair.
fn slot(gpu: Option<Matrix>, pair: Option<DdMatrix>, rows: usize, cols: usize, keep: bool) -> Slot {
    Slot {
        gpu,
        cpu: None,
        dirty: false,
        version: 0,
        freed: false,
        last_use: TICK.fetch_add(1, Ordering::Relaxed),
        rows,
        cols,
        keep,
        backup: None,
        lost: false,
        float_float: pair.is_some(),
        pair,
        float64_backup: None,
    }
}

fn wrap_slot(gpu: &Rc<Gpu>, registry: &Registry, slot: Slot) -> GpuMatrix {
    let id = NEXT_MATRIX_ID.fetch_add(1, Ordering::Relaxed);
    let (rows, cols) = (slot.rows, slot.cols);
    let cell = Rc::new(RefCell::new(slot));
    let mut registry = registry.borrow_mut();
    if registry.len() >= 64 && registry.len().is_power_of_two() {
        registry.retain(|_, w| w.strong_count() > 0);
    }
    registry.insert(id, Rc::downgrade(&cell));
    GpuMatrix {
        gpu: gpu.clone(),
        id,
        rows,
        cols,
        matrix: cell,
    }
}
