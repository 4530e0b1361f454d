//! Float-float matrices in JavaScript: `gpu.uploadFloat64(data, rows, cols)` makes a GpuMatrix
//! whose elements are hi + lo pairs of float32s (about 48 bits; `m.floatFloat` is true and
//! `readFloat64()` resolves to a Float64Array of hi + lo). `matmul`, `add`, `sub`, `scale`, `dot`,
//! `normSquared`, `mulVec` and `cg` take two float-float operands and give float-float results
//! (see [`crate::gpu::float_float`]); the helpers here let those methods of `gpgpu.rs` and
//! `solve.rs` branch to it, and refuse float-float and float32 operands mixed.

use js_sys::{Float64Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpgpu::Gpgpu;
use super::gpu_matrix::{pair_of, wrap_float_float, GpuMatrix};
use super::options::{dimension, option_value};
use crate::error::Error;
use crate::gpu::DdMatrix;

#[wasm_bindgen]
impl Gpgpu {
    /// Uploads `rows x cols` row-major float64 values as a float-float matrix: each value split
    /// on the CPU into hi = f32(x) and lo = f32(x - hi), two textures. NaN, infinities and
    /// values beyond float32's range (which float-float shares) are refused.
    #[wasm_bindgen(js_name = uploadFloat64)]
    pub fn upload_float64(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float64Array")] data: &JsValue,
        rows: f64,
        cols: f64,
    ) -> Result<GpuMatrix, JsValue> {
        let (rows, cols) = (dimension("rows", rows)?, dimension("cols", cols)?);
        let data = data
            .dyn_ref::<Float64Array>()
            .ok_or_else(|| Error::Argument("uploadFloat64 takes a Float64Array".into()))?;
        let values = data.to_vec();
        let m = self.float_float_result(self.gpu.float_float().upload(&values, rows, cols))?;
        m.back_up_float64(&values);
        Ok(m)
    }
}

impl Gpgpu {
    /// The operands of a two-operand operation that also runs in float-float: `None` when both
    /// are float32 (the caller goes on in float32), both pairs when both are float-float, a
    /// clear error when one of each is given.
    pub(super) fn float_float_operands(
        &self,
        what: &str,
        a: &GpuMatrix,
        b: &GpuMatrix,
    ) -> Result<Option<(DdMatrix, DdMatrix)>, Error> {
        match (a.float_float(), b.float_float()) {
            (false, false) => Ok(None),
            (true, true) => Ok(Some((a.pair()?, b.pair()?))),
            (first, _) => Err(Error::Argument(format!(
                "{what} was given a float-float and a float32 matrix ({} is the float-float \
                 one): they do not mix; upload both with uploadFloat64, or both with upload",
                if first { "the first" } else { "the second" }
            ))),
        }
    }

    /// Wraps a float-float result as a GpuMatrix (or passes its error on).
    pub(super) fn float_float_result(
        &self,
        m: Result<DdMatrix, Error>,
    ) -> Result<GpuMatrix, JsValue> {
        let wrapped = wrap_float_float(&self.gpu, &self.registry, m?, self.keep_copies);
        self.enforce_budget();
        Ok(wrapped)
    }

    /// A function that wraps a float-float matrix as a GpuMatrix later (in a promise).
    pub(super) fn wrap_float_float_fn(&self) -> impl Fn(DdMatrix) -> GpuMatrix + 'static {
        let (gpu, registry, keep) = (self.gpu.clone(), self.registry.clone(), self.keep_copies);
        move |m| wrap_float_float(&gpu, &registry, m, keep)
    }

    /// `dot(a, b)` of two float-float matrices as a promise of one float64 number.
    pub(super) fn dot_float_float(&self, a: DdMatrix, b: DdMatrix) -> Promise {
        let gpu = self.gpu.clone();
        future_to_promise(async move { Ok(gpu.float_float().dot(&a, &b).await?.into()) })
    }

    /// The float-float GpuMatrix named by `options[key]`, if any.
    pub(super) fn option_pair(
        &self,
        options: &JsValue,
        key: &str,
    ) -> Result<Option<DdMatrix>, Error> {
        let v = option_value(options, key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        let id = Reflect::get(&v, &"id".into())
            .ok()
            .and_then(|id| id.as_f64())
            .ok_or_else(|| Error::Argument(format!("{key} must be a GpuMatrix")))?;
        let m = self.registry.get(id as u32).ok_or(Error::ForeignMatrix)?;
        pair_of(&self.gpu, &m).map(Some)
    }
}
