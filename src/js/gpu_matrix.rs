//! `GpuMatrix`: a matrix whose data stays on the GPU until `read()`, with a CPU copy for
//! `get`/`set` (the thesis's controller: one read-back, then served from the copy until the GPU
//! side changes; one upload before the next GPU use). Where its values are, and every move
//! between the GPU and the CPU, is [`crate::gpu::residency`]'s; this is its JavaScript face,
//! with the copies kept in JavaScript arrays.

use std::future::Future;
use std::rc::Rc;

use js_sys::{Float32Array, Float64Array, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::copies::{let_go, Keep, Kept};
use crate::error::Error;
use crate::gpu::ops;
use crate::gpu::products::cpu;
use crate::gpu::residency::{self, Residency, Resident, Shared, Source};
use crate::gpu::{beyond_float16, DdMatrix, Format, Gpu, Transpose};
use crate::kernels::Expr;
use crate::matrix::Matrix;

/// A matrix of either kind, its copies kept in JavaScript arrays.
pub(super) type Handle = residency::Handle<Kept, Float64Array>;

/// A GPU's matrices by id, so that arrays of matrices can be passed from JS.
pub(super) type Registry = Rc<residency::Registry<Kept, Float64Array>>;

/// A float32 matrix's record.
type Float32Shared = Shared<Matrix, Kept>;

/// What a float32 operation says of a float-float operand.
const FLOAT32_ONLY: &str = "this operation takes float32 matrices, and a float-float one (from \
    uploadFloat64) was given: float-float matrices have readFloat64, readInto, matmul, add, sub, \
    scale, dot, normSquared, mulVec, cg, refine and free";

/// What a float-float operation says of a float32 operand.
const FLOAT_FLOAT_ONLY: &str = "a float32 matrix was given where this operation takes \
    float-float ones (from uploadFloat64): float-float and float32 matrices do not mix";

/// The float32 record of `m`, or a clear error: freed, or float-float (`why`).
fn float32<'m>(m: &'m Handle, why: &str) -> Result<&'m Float32Shared, Error> {
    match m {
        Handle::Float32(m) => Ok(m),
        Handle::FloatFloat(m) => Err(match m.borrow().residency() {
            Residency::Freed => Error::Freed,
            _ => Error::Argument(why.into()),
        }),
    }
}

/// The texture of `m` for a GPU operation: uploaded again from a CPU copy where `set` changed
/// it, the budget moved it out or the GPU was lost; or a clear error (freed, lost, float-float).
pub(super) fn matrix_of(gpu: &Gpu, m: &Handle) -> Result<Matrix, Error> {
    let m = float32(m, FLOAT32_ONLY)?;
    gpu.revive()?;
    let mut m = m.borrow_mut();
    m.catch_up(gpu.generation());
    let format = m.format();
    m.texture(|source, rows, cols| match source {
        Source::Values(values) => gpu.upload_as(values, (rows, cols), format),
        Source::Kept(kept) => gpu.upload_js_as(kept.array()?, (rows, cols), format),
    })
}

/// A product computed on the CPU: its row-major values and its `(rows, cols)`.
pub(super) type CpuProduct = (Vec<f32>, (usize, usize));

/// `op(a) op(b)` on the CPU ([`cpu::mul`]) of the float32 values held there, with its shape;
/// `None` where an operand's values are only on the GPU, or its texture stores them as float16
/// (the CPU copy is then not what the GPU multiplies). A clear error for a freed or float-float
/// operand, one of another Gpgpu than `gpu`, and shapes that do not multiply.
pub(super) fn cpu_product(
    gpu: &Rc<Gpu>,
    a: &GpuMatrix,
    b: &GpuMatrix,
    transpose: Transpose,
) -> Result<Option<CpuProduct>, Error> {
    let x = float32(&a.matrix, FLOAT32_ONLY)?.borrow();
    let y = float32(&b.matrix, FLOAT32_ONLY)?.borrow();
    x.usable()?;
    y.usable()?;
    if !Rc::ptr_eq(gpu, &a.gpu) || !Rc::ptr_eq(gpu, &b.gpu) {
        return Err(Error::ForeignMatrix);
    }
    let (m, k, n) = transpose.dims((a.rows, a.cols), (b.rows, b.cols))?;
    fn held(r: &Resident<Matrix, Kept>) -> Option<&[f32]> {
        (r.format() == Format::F32).then(|| r.values()).flatten()
    }
    let (Some(x), Some(y)) = (held(&x), held(&y)) else {
        return Ok(None);
    };
    Ok(Some((cpu::mul(x, y, (m, k, n), transpose), (m, n))))
}

/// The float-float pair of `m`, uploaded again from its copy after a lost GPU; or a clear error
/// (freed, lost, float32).
pub(super) fn pair_of(gpu: &Gpu, m: &Handle) -> Result<DdMatrix, Error> {
    match m {
        Handle::FloatFloat(m) => {
            gpu.revive()?;
            let mut m = m.borrow_mut();
            m.catch_up(gpu.generation());
            m.texture(|source, rows, cols| match source {
                Source::Values(values) => gpu.float_float().upload(values, rows, cols),
                Source::Kept(kept) => gpu.float_float().upload(&kept.to_vec(), rows, cols),
            })
        }
        Handle::Float32(m) => {
            m.borrow().usable()?;
            Err(Error::Argument(FLOAT_FLOAT_ONLY.into()))
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
    matrix: Handle,
    /// Which copies it keeps of what is uploaded into it and read back from it.
    keep: Keep,
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
        matches!(self.matrix, Handle::FloatFloat(_))
    }

    /// How it stores its values: `"float32"`, `"float16"` (uploaded with `{ dtype:
    /// "float16" }`: half the memory, each value rounded to float16; every operation reads it
    /// as float32 and gives float32 results, an in-place one makes it float32) or
    /// `"float-float"`.
    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> String {
        match &self.matrix {
            Handle::Float32(m) => m.borrow().format().name().into(),
            Handle::FloatFloat(_) => "float-float".into(),
        }
    }

    /// A number that identifies this matrix within its Gpgpu.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// This float32 matrix as the page's own GPU resource, to draw with without a read-back:
    /// `{ texture, format, width, height, rows, cols }`, `texture` a `GPUTexture` of
    /// `gpu.device()` (WebGPU) or a `WebGLTexture` of `gpu.glContext()` (WebGL2). Format
    /// `"rgba32float"` (WebGL2: `RGBA32F`, `RGBA`, `FLOAT`; `"rgba16float"`, `RGBA16F`, for a
    /// float16 matrix), `cols` texels wide and
    /// `ceil(rows / 4)` high: texel (x, y) holds rows 4y..4y+3 of column x in r, g, b, a, rows
    /// past the end zero. The work that computes it is submitted first. Read it, never write
    /// or destroy it: it is the matrix's until the matrix is freed, changed in place (`set`,
    /// `addAssign`, ...), moved out by `memoryBudget` or lost with the GPU, and then the texture
    /// may hold another matrix; call `texture()` again after any of those.
    #[wasm_bindgen(unchecked_return_type = "MatrixTexture")]
    pub fn texture(&self) -> Result<Object, JsValue> {
        if self.float_float() {
            return Err(Error::Argument(
                "texture() gives a float32 matrix's texture; a float-float matrix is two \
                 (hi and lo)"
                    .into(),
            )
            .into());
        }
        let matrix = self.matrix()?;
        let texture = self.gpu.handle(&matrix)?;
        let layout = matrix.layout;
        Ok(super::options::object(&[
            ("texture", texture),
            (
                "format",
                match matrix.format() {
                    Format::F32 => "rgba32float",
                    Format::F16 => "rgba16float",
                }
                .into(),
            ),
            ("width", layout.width().into()),
            ("height", layout.height().into()),
            ("rows", layout.rows.into()),
            ("cols", layout.cols.into()),
        ]))
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
        let gpu = self.gpu.clone();
        let Handle::FloatFloat(m) = &self.matrix else {
            let values = self.read_float32();
            return future_to_promise(async move {
                Ok(Float64Array::new(&values.await?.into()).into())
            });
        };
        let (pair, m) = (self.pair(), m.clone());
        future_to_promise(async move {
            let values = read_float_float(&gpu, &m, pair?).await?;
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
        let gpu = self.gpu.clone();
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
        let m = match &self.matrix {
            Handle::FloatFloat(m) => {
                let (pair, m) = (self.pair(), m.clone());
                let out = out.dyn_into::<Float64Array>().ok();
                let out = out
                    .filter(|a| a.length() as usize == n)
                    .ok_or(wrong("Float64Array"));
                return future_to_promise(async move {
                    let (out, pair) = (out?, pair?);
                    out.copy_from(&read_float_float(&gpu, &m, pair).await?);
                    Ok(out.into())
                });
            }
            Handle::Float32(m) => m.clone(),
        };
        let out = out.dyn_into::<Float32Array>().ok();
        let Some(out) = out.filter(|a| a.length() as usize == n) else {
            return Promise::reject(&wrong("Float32Array").into());
        };
        // From the CPU copy where there is one: copied into `out` now, not cloned first.
        let (copied, version) = {
            let m = m.borrow();
            let copied = m.values().map(|copy| out.copy_from(copy)).is_some();
            (copied, m.version())
        };
        if copied {
            return Promise::resolve(&JsValue::from(out));
        }
        let (matrix, keep, handle) = (self.matrix(), self.keep, self.matrix.clone());
        future_to_promise(async move {
            let matrix = once_revived(&gpu, &handle, matrix).await?;
            gpu.read_js(&matrix, &out).await?;
            m.borrow_mut().keep(version, || keep.of(&out));
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
            let value = match copy.await? {
                (_, Some(read)) => Some(read[index]),
                (m, None) => m.borrow().values().map(|values| values[index]),
            };
            Ok(value.ok_or(Error::Freed)?.into())
        })
    }

    /// Sets the element at row `i`, column `j` to `value` in the CPU copy (made by one read-back
    /// if there is none); the texture is brought up to date by one upload before the matrix's
    /// next GPU use, however many elements were set.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn set(&self, i: f64, j: f64, value: f32) -> Promise {
        let (index, copy) = (self.index(i, j), self.copy());
        future_to_promise(async move {
            let index = index?;
            let (m, _) = copy.await?;
            let value = match m.borrow().format() {
                Format::F16 if beyond_float16(value) => {
                    return Err(Error::Argument(format!(
                        "{value} is beyond the range of this float16 matrix (\u{b1}65504)"
                    ))
                    .into())
                }
                Format::F16 => half::f16::from_f32(value).to_f32(),
                Format::F32 => value,
            };
            let copy = m.borrow_mut().set(index, value)?;
            let_go(copy);
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

    /// `this += b * c` for a number c (the ShaderX2 article's `mad(b, c)`).
    #[wasm_bindgen(js_name = addScaledMut)]
    pub fn add_scaled_mut(&self, b: &GpuMatrix, c: f32) -> Result<(), JsValue> {
        self.update(ops::add_scaled(super::options::factor(c)?), &[b])
    }

    /// `this += a .* b` (the ShaderX2 article's `mad(a, b)`).
    #[wasm_bindgen(js_name = addComponentMulMut)]
    pub fn add_component_mul_mut(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add_component_mul(), &[a, b])
    }

    /// Frees the GPU texture (and the CPU copy) now; any later use of this matrix is an error.
    /// (wasm-bindgen declares `free()` and `[Symbol.dispose]()`, which calls this, for every
    /// class: this one is left out of the TypeScript so that it is declared once.)
    #[wasm_bindgen(js_name = free, skip_typescript)]
    pub fn release(&self) {
        free(&self.matrix);
    }
}

impl GpuMatrix {
    /// The float32 values, as `read()` resolves to them: from the CPU copy where there is one
    /// (copied into the array now, not cloned first), else read back (and kept as the copy
    /// that restores the matrix, where copies are kept); a float-float matrix is an error.
    fn read_float32(&self) -> impl std::future::Future<Output = Result<Float32Array, Error>> {
        let (gpu, keep) = (self.gpu.clone(), self.keep);
        let found = match &self.matrix {
            Handle::Float32(m) => {
                let (copy, version) = {
                    let m = m.borrow();
                    (m.values().map(Float32Array::from), m.version())
                };
                // Taken only without a copy: taking it may upload the texture.
                let matrix = copy.is_none().then(|| self.matrix());
                Ok((m.clone(), copy, version, matrix, self.matrix.clone()))
            }
            Handle::FloatFloat(_) => Err(Error::Argument(
                "read() gives float32 values, and this is a float-float matrix: read it with \
                 readFloat64() (a Float64Array of hi + lo)"
                    .into(),
            )),
        };
        async move {
            let (m, copy, version, matrix, handle) = found?;
            let matrix = match copy {
                Some(copy) => return Ok(copy),
                None => matrix.unwrap_or(Err(Error::Freed)),
            };
            let matrix = once_revived(&gpu, &handle, matrix).await?;
            let values = gpu.read_values(&matrix).await?.into_js();
            m.borrow_mut().keep(version, || keep.of(&values));
            Ok(values)
        }
    }

    pub(super) fn matrix(&self) -> Result<Matrix, Error> {
        matrix_of(&self.gpu, &self.matrix)
    }

    /// The float-float pair of this matrix, or a clear error for a float32 one.
    pub(super) fn pair(&self) -> Result<DdMatrix, Error> {
        pair_of(&self.gpu, &self.matrix)
    }

    /// Keeps a copy of `values`, just uploaded into this float-float matrix, where copies are
    /// kept.
    pub(super) fn back_up_float64(&self, values: &[f64]) {
        if let Handle::FloatFloat(m) = &self.matrix {
            let version = m.borrow().version();
            m.borrow_mut().keep(version, || Float64Array::from(values));
        }
    }

    /// Keeps a copy of `data`, just uploaded into this matrix, where copies are kept.
    pub(super) fn back_up(&self, data: &Float32Array) {
        if let Handle::Float32(m) = &self.matrix {
            let version = m.borrow().version();
            m.borrow_mut().keep(version, || self.keep.of(data));
        }
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

    /// This float32 matrix once it holds a CPU copy, made by one read-back if there is none;
    /// with the values read back where the matrix changed meanwhile and did not keep them.
    fn copy(&self) -> impl Future<Output = Result<(Float32Shared, Option<Vec<f32>>), Error>> {
        let (gpu, handle) = (self.gpu.clone(), self.matrix.clone());
        async move {
            let why = "get and set take float32 matrices: readFloat64() a float-float one";
            let m = float32(&handle, why)?.clone();
            if m.borrow().values().is_some() {
                return Ok((m, None));
            }
            let (matrix, version) = (matrix_of(&gpu, &handle)?, m.borrow().version());
            let values = gpu.read(&matrix).await?;
            let unheld = m.borrow_mut().hold(version, values);
            Ok((m, unheld))
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
        let_go(
            float32(&self.matrix, FLOAT32_ONLY)?
                .borrow_mut()
                .change(this),
        );
        Ok(())
    }
}

/// `matrix`, taken for a read; where that failed because the GPU went and a new device is
/// being opened unasked, taken again once it is (or the error, once).
async fn once_revived(
    gpu: &Gpu,
    handle: &Handle,
    matrix: Result<Matrix, Error>,
) -> Result<Matrix, Error> {
    match matrix {
        Err(Error::Lost(_)) if gpu.reviving() => {
            gpu.revived().await;
            matrix_of(gpu, handle)
        }
        other => other,
    }
}

/// Frees `m` now (its texture and copies; any later use is an error).
pub(super) fn free(m: &Handle) {
    match m {
        Handle::Float32(m) => let_go(m.borrow_mut().free()),
        Handle::FloatFloat(m) => drop(m.borrow_mut().free()),
    }
}

/// Reads the float-float `pair` of `m` back, keeping a copy where copies are kept.
async fn read_float_float(
    gpu: &Gpu,
    m: &Shared<DdMatrix, Float64Array>,
    pair: DdMatrix,
) -> Result<Vec<f64>, Error> {
    let version = m.borrow().version();
    let values = gpu.float_float().read(&pair).await?;
    m.borrow_mut()
        .keep(version, || Float64Array::from(values.as_slice()));
    Ok(values)
}

/// Makes a GpuMatrix of `m` and records it in `registry`; `keep`: whether it keeps a copy of
/// what is uploaded to it and read back from it.
pub(super) fn wrap_matrix(gpu: &Rc<Gpu>, registry: &Registry, m: Matrix, keep: Keep) -> GpuMatrix {
    let (rows, cols) = (m.rows(), m.cols());
    let m = Resident::new(m, rows, cols, keep.any()).made_in(gpu.generation());
    let m = Handle::float32(m);
    wrap(gpu, registry, m, rows, cols, keep)
}

/// Makes a GpuMatrix of `values`, a `rows x cols` float32 matrix computed on the CPU (its
/// texture is made on its first GPU use), and records it in `registry`.
pub(super) fn wrap_values(
    gpu: &Rc<Gpu>,
    registry: &Registry,
    values: Vec<f32>,
    (rows, cols): (usize, usize),
    keep: Keep,
) -> GpuMatrix {
    let m = Resident::on_cpu(values, (rows, cols), Format::F32, keep.any());
    let m = Handle::float32(m.made_in(gpu.generation()));
    wrap(gpu, registry, m, rows, cols, keep)
}

/// Makes a GpuMatrix of the float-float matrix `m` and records it in `registry` (so that a
/// float32 operation given it says why it cannot take it); `keep`: whether it keeps a copy of
/// what is uploaded to it and read back from it.
pub(super) fn wrap_float_float(
    gpu: &Rc<Gpu>,
    registry: &Registry,
    m: DdMatrix,
    keep: Keep,
) -> GpuMatrix {
    let (rows, cols) = (m.rows(), m.cols());
    let m = Resident::new(m, rows, cols, keep.any()).made_in(gpu.generation());
    let m = Handle::float_float(m);
    wrap(gpu, registry, m, rows, cols, keep)
}

fn wrap(
    gpu: &Rc<Gpu>,
    registry: &Registry,
    matrix: Handle,
    rows: usize,
    cols: usize,
    keep: Keep,
) -> GpuMatrix {
    GpuMatrix {
        gpu: gpu.clone(),
        id: registry.add(&matrix),
        rows,
        cols,
        matrix,
        keep,
    }
}
