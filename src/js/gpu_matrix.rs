//! `GpuMatrix`: a matrix whose data stays on the GPU until `read()`, and the registry that lets
//! a `Gpgpu` find its matrices in JavaScript arrays.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicU32, Ordering};

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::error::Error;
use crate::gpu::ops;
use crate::gpu::Gpu;
use crate::kernels::Expr;
use crate::matrix::Matrix;

/// A device's matrices by id, so that arrays of matrices can be passed from JS.
pub(super) type Registry = Rc<RefCell<HashMap<u32, Weak<Slot>>>>;

static NEXT_MATRIX_ID: AtomicU32 = AtomicU32::new(1);

/// Where a GpuMatrix keeps its matrix: `None` once freed.
pub(super) type Slot = RefCell<Option<Matrix>>;

/// A matrix whose data stays on the GPU until `read()`.
#[wasm_bindgen]
pub struct GpuMatrix {
    device: Rc<Gpu>,
    id: u32,
    rows: usize,
    cols: usize,
    matrix: Rc<Slot>,
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

    /// A number that identifies this matrix within its Gpgpu.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Reads the matrix back: a Float32Array of exactly rows * cols values, row-major.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float32Array>")]
    pub fn read(&self) -> Promise {
        let device = self.device.clone();
        let matrix = self.matrix();
        future_to_promise(async move { Ok(device.read_values(&matrix?).await?.into_js().into()) })
    }

    /// `this += b`.
    #[wasm_bindgen(js_name = addAssign)]
    pub fn add_assign(&self, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add(), &[b])
    }

    /// `this *= c` for a number c.
    #[wasm_bindgen(js_name = scaleMut)]
    pub fn scale_mut(&self, c: f32) -> Result<(), JsValue> {
        self.update(ops::scale(c), &[])
    }

    /// `this += b * c` for a number c (seed 000's `mad(b, c)`).
    #[wasm_bindgen(js_name = addScaledMut)]
    pub fn add_scaled_mut(&self, b: &GpuMatrix, c: f32) -> Result<(), JsValue> {
        self.update(ops::add_scaled(c), &[b])
    }

    /// `this += a .* b` (seed 000's `mad(a, b)`).
    #[wasm_bindgen(js_name = addComponentMulMut)]
    pub fn add_component_mul_mut(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<(), JsValue> {
        self.update(ops::add_component_mul(), &[a, b])
    }

    /// Frees the GPU texture now; any later use of this matrix is an error.
    #[wasm_bindgen(js_name = free)]
    pub fn release(&self) {
        self.matrix.borrow_mut().take();
    }
}

impl GpuMatrix {
    pub(super) fn matrix(&self) -> Result<Matrix, Error> {
        self.matrix.borrow().clone().ok_or(Error::Freed)
    }

    /// `this = expr(this, others...)`, replacing this matrix's texture.
    fn update(&self, expr: Expr, others: &[&GpuMatrix]) -> Result<(), JsValue> {
        let others = others
            .iter()
            .map(|m| m.matrix())
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Matrix> = others.iter().collect();
        let mut this = self.matrix()?;
        self.device.map_mut(&expr, &mut this, &refs)?;
        *self.matrix.borrow_mut() = Some(this);
        Ok(())
    }
}

/// Makes a GpuMatrix of `m` and records it in `registry`.
pub(super) fn wrap_matrix(device: &Rc<Gpu>, registry: &Registry, m: Matrix) -> GpuMatrix {
    let id = NEXT_MATRIX_ID.fetch_add(1, Ordering::Relaxed);
    let (rows, cols) = (m.rows(), m.cols());
    let cell = Rc::new(RefCell::new(Some(m)));
    let mut registry = registry.borrow_mut();
    if registry.len() >= 64 && registry.len().is_power_of_two() {
        registry.retain(|_, w| w.strong_count() > 0);
    }
    registry.insert(id, Rc::downgrade(&cell));
    GpuMatrix {
        device: device.clone(),
        id,
        rows,
        cols,
        matrix: cell,
    }
}
