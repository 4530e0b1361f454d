//! `gpu.scope(fn)`: every matrix made while `fn` runs is freed when it ends, except those it
//! returns (a matrix, or arrays and plain objects holding matrices, as TF.js's `tidy` keeps
//! what its function returns). `fn` may be async: the scope ends when its promise settles.
//! Scopes nest: what an inner scope returns belongs to the scope around it. The records are
//! [`crate::gpu::residency::Registry`]'s.

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::gpgpu::Gpgpu;
use super::gpu_matrix::{free, Registry};
use crate::hash::Set;

/// How deep `scope` looks into what `fn` returns for matrices to keep.
const DEPTH: usize = 8;

#[wasm_bindgen]
impl Gpgpu {
    /// Runs `fn()` and frees every matrix made while it ran except those it returns (a
    /// GpuMatrix, or arrays and plain objects holding them, up to 8 levels deep); returns what
    /// `fn` returns. An async `fn` gives a promise, and its matrices are freed once it settles.
    /// Scopes nest; what an inner scope returns belongs to the scope around it. If `fn` throws
    /// or rejects, every matrix made in it is freed and the error passes on. (Typed in
    /// `types.rs`, generic over what `fn` returns.)
    #[wasm_bindgen(skip_typescript)]
    pub fn scope(&self, f: &Function) -> Result<JsValue, JsValue> {
        let registry = self.registry.clone();
        let number = registry.open_scope();
        let result = match f.call0(&JsValue::UNDEFINED) {
            Ok(result) => result,
            Err(e) => {
                close(&registry, number, &JsValue::UNDEFINED);
                return Err(e);
            }
        };
        let Some(promise) = result.dyn_ref::<Promise>().cloned() else {
            close(&registry, number, &result);
            return Ok(result);
        };
        Ok(future_to_promise(async move {
            let settled = JsFuture::from(promise).await;
            close(
                &registry,
                number,
                settled.as_ref().unwrap_or(&JsValue::UNDEFINED),
            );
            settled
        })
        .into())
    }
}

/// Closes scope `number`, freeing what was made in it and is not in `returned`.
fn close(registry: &Registry, number: u32, returned: &JsValue) {
    let mut keep = Set::default();
    matrix_ids(returned, DEPTH, &mut keep);
    for m in registry.close_scope(number, |id| keep.contains(&id)) {
        free(&m);
    }
}

/// The ids of the GpuMatrix objects in `value`: itself, or in arrays and plain objects, `depth`
/// levels deep.
fn matrix_ids(value: &JsValue, depth: usize, ids: &mut Set<u32>) {
    if depth == 0 || !value.is_object() {
        return;
    }
    if let Some(array) = value.dyn_ref::<Array>() {
        array.iter().for_each(|v| matrix_ids(&v, depth - 1, ids));
        return;
    }
    let object: &Object = value.unchecked_ref();
    // A texla object (wasm-bindgen's pointer) with an id: a GpuMatrix, the only one with an id.
    let id = Reflect::get(object, &"id".into())
        .ok()
        .and_then(|id| id.as_f64());
    if let (true, Some(id)) = (Reflect::has(object, &"__wbg_ptr".into()) == Ok(true), id) {
        ids.insert(id as u32);
        return;
    }
    let class = Reflect::get(object, &"constructor".into())
        .and_then(|c| Reflect::get(&c, &"name".into()))
        .ok()
        .and_then(|n| n.as_string());
    if class.as_deref() == Some("Object") {
        for v in Object::values(object).iter() {
            matrix_ids(&v, depth - 1, ids);
        }
    }
}
