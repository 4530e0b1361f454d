//! Kernels of one's own: `gpu.runKernel({ wgsl, glsl, compute }, inputs, { rows, cols, params })`
//! compiles a body into texla's prelude and runs it (a page's kernel lab); `gpu.lastKernel()`
//! gives the body of the last pass, to start from.

use js_sys::{Float32Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::gpgpu::Gpgpu;
use super::options::{dimension, known_options, object, option_value, whole};
use crate::error::Error;
use crate::kernels;
use crate::matrix::Matrix;

#[wasm_bindgen]
impl Gpgpu {
    /// Runs a kernel of your own on `inputs` (named `a`, `b`, ... in order, at most 6) into a
    /// new `rows x cols` matrix: the body (see `KernelSource`) goes into texla's prelude, is
    /// compiled, and runs once per output texel (or as a compute dispatch). A body that does not
    /// compile rejects with an Error whose message names the lines of the body (the prelude
    /// mapped away), with `messages` (`{ line, column, message }`) and `lines` for a page to
    /// mark; the GPU goes on working as before. A kernel that never ends (a loop without end)
    /// can make the browser reset the GPU: keep a lab's matrices small.
    #[wasm_bindgen(js_name = runKernel, unchecked_return_type = "Promise<GpuMatrix>")]
    pub fn run_kernel(
        &self,
        #[wasm_bindgen(unchecked_param_type = "KernelSource")] kernel: JsValue,
        #[wasm_bindgen(unchecked_param_type = "GpuMatrix[]")] inputs: &JsValue,
        #[wasm_bindgen(unchecked_param_type = "RunKernelOptions")] options: JsValue,
    ) -> Promise {
        let args = (|| {
            let inputs = self.matrices(inputs)?;
            let kernel = own_kernel(&kernel, inputs.len())?;
            known_options(&options, "runKernel", &["rows", "cols", "params"])?;
            let size = |key: &str| {
                let v = option_value(&options, key).as_f64().ok_or_else(|| {
                    Error::Argument(format!("runKernel needs the output's {key} (a number)"))
                })?;
                dimension(key, v)
            };
            let shape = (size("rows")?, size("cols")?);
            let params = option_value(&options, "params");
            let params = if params.is_undefined() || params.is_null() {
                Vec::new()
            } else if params.is_object() {
                Float32Array::new(&params).to_vec()
            } else {
                return Err(Error::Argument(
                    "the option params must be an array of numbers".into(),
                ));
            };
            Ok::<_, Error>((kernel, inputs, shape, params))
        })();
        let (gpu, wrap) = (self.gpu.clone(), self.wrap_fn());
        future_to_promise(async move {
            let (kernel, inputs, shape, params) = args?;
            let refs: Vec<&Matrix> = inputs.iter().collect();
            let m = gpu.run_own(kernel, &refs, shape, &params).await?;
            Ok(wrap(m).into())
        })
    }

    /// The kernel of the last pass that ran (see `LastKernel`), or null before any: a page
    /// shows its body and lets a person edit it and run it again with `runKernel`.
    #[wasm_bindgen(js_name = lastKernel, unchecked_return_type = "LastKernel | null")]
    pub fn last_kernel(&self) -> JsValue {
        let Some(p) = self.gpu.last_program() else {
            return JsValue::NULL;
        };
        let k = &p.kernel;
        let compute = k.compute.map_or(JsValue::NULL, |c| {
            let per_group: js_sys::Array = [c.per_group.0, c.per_group.1]
                .iter()
                .map(|&v| JsValue::from(v as f64))
                .collect();
            object(&[
                ("perGroup", per_group.into()),
                ("scratch", (c.scratch_words > 0).into()),
            ])
            .into()
        });
        let params: js_sys::Array = p.params.iter().map(|&v| JsValue::from(v)).collect();
        object(&[
            ("name", k.name.as_ref().into()),
            ("wgsl", k.wgsl.as_ref().into()),
            ("glsl", k.glsl.as_ref().into()),
            ("inputs", (k.inputs.len() as f64).into()),
            ("outputs", (k.outputs as f64).into()),
            ("compute", compute),
            ("rows", (p.output.rows as f64).into()),
            ("cols", (p.output.cols as f64).into()),
            ("params", params.into()),
        ])
        .into()
    }
}

/// The kernel `{ wgsl, glsl, compute }` from JavaScript, reading `inputs` inputs.
fn own_kernel(source: &JsValue, inputs: usize) -> Result<kernels::Kernel, Error> {
    if !source.is_object() {
        return Err(Error::Argument(
            "runKernel needs the kernel as { wgsl, glsl }: its body in WGSL and/or GLSL ES 3.00"
                .into(),
        ));
    }
    known_options(source, "runKernel's kernel", &["wgsl", "glsl", "compute"])?;
    let body = |key: &str| {
        let v = option_value(source, key);
        match v.as_string() {
            Some(s) => Ok(s),
            None if v.is_undefined() || v.is_null() => Ok(String::new()),
            None => Err(Error::Argument(format!(
                "the kernel's {key} must be a string (its body)"
            ))),
        }
    };
    let compute = option_value(source, "compute");
    let per_group = if compute.is_undefined() || compute.is_null() {
        None
    } else {
        known_options(&compute, "runKernel's compute", &["perGroup"])?;
        let bad = || {
            Error::Argument(
                "compute.perGroup must be [columns, texel rows] of output one workgroup covers"
                    .into(),
            )
        };
        let pair = option_value(&compute, "perGroup");
        let pair = pair.dyn_ref::<js_sys::Array>().ok_or_else(bad)?;
        if pair.length() != 2 {
            return Err(bad());
        }
        let side = |i: u32, name: &str| {
            let v = pair.get(i).as_f64().ok_or_else(bad)?;
            whole(name, v, 1.0..=1e6, " from 1 up").map(|v| v as usize)
        };
        Some((side(0, "perGroup[0]")?, side(1, "perGroup[1]")?))
    };
    kernels::custom(&body("wgsl")?, &body("glsl")?, inputs, per_group)
}
