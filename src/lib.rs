//! # texla: GPGPU linear algebra in a browser tab
//!
//! Matrices live on the GPU as RGBA32F textures, four rows of one column per texel
//! ([`layout`]), and are computed on with fragment shaders ([`kernel`], `shaders/`), on WebGPU
//! (wgpu) or WebGL2 (glow) ([`backend`]). Everything a kernel or solver needs goes through the
//! [`device::Device`] trait; nothing above [`backend`] touches wgpu or glow.
//!
//! This file holds the module list and the JavaScript API (`Gpgpu`, `GpuMatrix`).
#![warn(missing_docs)]

pub mod backend;
pub mod device;
pub mod error;
pub mod expr;
pub mod gpu;
pub mod kernel;
pub mod layout;
pub mod matrix;
pub mod reference;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Float32Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::backend::BackendKind;
use crate::device::{Choice, Device};
use crate::error::Error;
use crate::matrix::Matrix;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** What `Gpgpu.capabilities()` returns: the facts of the page's capability panel. */
export interface Capabilities {
  /** "webgpu" or "webgl2". */
  backend: "webgpu" | "webgl2";
  /** The adapter (WebGPU) or renderer (WebGL2), as the browser names it. */
  adapter: string;
  /** Largest texture side: matrices up to 4*max rows and max columns. */
  maxTextureSize: number;
  /** Why this backend runs and why the other one was not used. */
  reason: string;
}
"#;

/// A GPU for linear algebra, on WebGPU or WebGL2.
#[wasm_bindgen]
pub struct Gpgpu {
    device: Rc<dyn Device>,
    reason: String,
}

#[wasm_bindgen]
impl Gpgpu {
    /// Opens a GPU: `"auto"` (the default) tries WebGPU, then WebGL2; `"webgpu"` or `"webgl2"`
    /// forces one. Rejects with a message naming what is missing when nothing works.
    pub async fn create(
        #[wasm_bindgen(unchecked_param_type = "\"auto\" | \"webgpu\" | \"webgl2\" | undefined")]
        backend: Option<String>,
    ) -> Result<Gpgpu, JsValue> {
        console_error_panic_hook::set_once();
        let choice: Choice = backend.as_deref().unwrap_or("auto").parse()?;
        let opened = device::open(choice).await?;
        Ok(Gpgpu {
            device: Rc::from(opened.device),
            reason: opened.reason,
        })
    }

    /// The backend that runs: "webgpu" or "webgl2".
    #[wasm_bindgen(getter, unchecked_return_type = "\"webgpu\" | \"webgl2\"")]
    pub fn backend(&self) -> String {
        self.kind().name().into()
    }

    /// Backend, adapter, maximum texture size and why this backend was chosen.
    #[wasm_bindgen(unchecked_return_type = "Capabilities")]
    pub fn capabilities(&self) -> Object {
        let caps = self.device.capabilities();
        let obj = Object::new();
        let set = |k: &str, v: JsValue| Reflect::set(&obj, &k.into(), &v).ok();
        set("backend", self.backend().into());
        set("adapter", caps.adapter.clone().into());
        set("maxTextureSize", caps.max_texture_size.into());
        set("reason", self.reason.clone().into());
        obj
    }

    /// Uploads `rows x cols` row-major values (a Float32Array, or an array of numbers).
    pub fn upload(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float32Array | number[]")] data: &JsValue,
        rows: f64,
        cols: f64,
    ) -> Result<GpuMatrix, JsValue> {
        let data = if let Some(f) = data.dyn_ref::<Float32Array>() {
            f.to_vec()
        } else if js_sys::Array::is_array(data) {
            Float32Array::new(data).to_vec()
        } else {
            return Err(
                Error::Shape("data must be a Float32Array or an array of numbers".into()).into(),
            );
        };
        let m = self
            .device
            .upload(&data, dimension("rows", rows)?, dimension("cols", cols)?)?;
        Ok(self.wrap(m))
    }

    /// `a * b`, computed on the GPU; the result stays there until read.
    pub fn matmul(&self, a: &GpuMatrix, b: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        let m = self.device.mul(&a.matrix()?, &b.matrix()?)?;
        Ok(self.wrap(m))
    }

    /// `m * m` for a square `m`, computed on the GPU.
    pub fn square(&self, m: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        let s = self.device.square(&m.matrix()?)?;
        Ok(self.wrap(s))
    }

    /// Resolves once all GPU work submitted so far has finished (for timings).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn finish(&self) -> Promise {
        let device = self.device.clone();
        future_to_promise(async move {
            device.finish().await?;
            Ok(JsValue::UNDEFINED)
        })
    }
}

impl Gpgpu {
    fn kind(&self) -> BackendKind {
        self.device.capabilities().backend
    }

    fn wrap(&self, m: Matrix) -> GpuMatrix {
        GpuMatrix {
            device: self.device.clone(),
            rows: m.rows(),
            cols: m.cols(),
            matrix: RefCell::new(Some(m)),
        }
    }
}

/// A matrix whose data stays on the GPU until `read()`.
#[wasm_bindgen]
pub struct GpuMatrix {
    device: Rc<dyn Device>,
    rows: usize,
    cols: usize,
    matrix: RefCell<Option<Matrix>>,
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

    /// Reads the matrix back: a Float32Array of exactly rows * cols values, row-major.
    #[wasm_bindgen(unchecked_return_type = "Promise<Float32Array>")]
    pub fn read(&self) -> Promise {
        let device = self.device.clone();
        let matrix = self.matrix();
        future_to_promise(async move {
            let data = device.read(&matrix?).await?;
            Ok(Float32Array::from(data.as_slice()).into())
        })
    }

    /// Frees the GPU texture now; any later use of this matrix is an error.
    #[wasm_bindgen(js_name = free)]
    pub fn release(&self) {
        self.matrix.borrow_mut().take();
    }
}

impl GpuMatrix {
    fn matrix(&self) -> Result<Matrix, Error> {
        self.matrix.borrow().clone().ok_or(Error::Freed)
    }
}

/// A matrix dimension from JavaScript: a whole number from 0 (refused later as a zero
/// dimension, with its own message) to 2^31.
fn dimension(name: &str, v: f64) -> Result<usize, Error> {
    if v.fract() == 0.0 && (0.0..=2_147_483_648.0).contains(&v) {
        Ok(v as usize)
    } else {
        Err(Error::Shape(format!(
            "{name} must be a whole number, got {v}"
        )))
    }
}
