//! Where the WebGPU backend gets its GPU: the global `navigator.gpu` (a page or a worker), a
//! `GPU` object handed over (Node, where npm `webgpu`'s `create([])` makes one), or a
//! `GPUDevice` that the page owns and shares.
//!
//! wgpu 30 opens the browser's WebGPU only through a global: `Instance::new` reads
//! `navigator.gpu` of a global that has a `Window` or a `WorkerGlobalScope` constructor (and
//! panics where it has neither, as in Node), and has no call that takes a `GPU` or wraps a
//! `GPUDevice`. So [`instance`] lends the global those two properties for the length of that one
//! synchronous call and puts back what was there: nothing else runs meanwhile, and the caller
//! sets no global. A shared device reaches wgpu the same way, through a stand-in `GPU` whose
//! adapter's `requestDevice()` resolves to that device.

use wasm_bindgen::JsValue;

/// Where the WebGPU backend gets its GPU.
#[derive(Debug, Clone, Default)]
pub enum GpuSource {
    /// The global `navigator.gpu` of the page or worker.
    #[default]
    Navigator,
    /// A `GPU` object: what `navigator.gpu` is, or npm `webgpu`'s `create([])` in Node.
    Gpu(JsValue),
    /// A `GPUDevice` its owner shares: texla computes on it, and never destroys it.
    Device(JsValue),
}

impl GpuSource {
    /// Whether texla computes on a device that its caller owns.
    pub fn shared(&self) -> bool {
        matches!(self, GpuSource::Device(_))
    }
}

#[cfg(target_arch = "wasm32")]
pub(super) use wasm::instance;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use js_sys::{Object, Promise, Reflect};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    use super::GpuSource;
    use crate::error::{Error, Result};

    fn get(o: &JsValue, key: &str) -> JsValue {
        Reflect::get(o, &key.into()).unwrap_or(JsValue::UNDEFINED)
    }

    fn has(o: &JsValue, key: &str) -> bool {
        let v = get(o, key);
        !v.is_undefined() && !v.is_null()
    }

    /// A wgpu instance whose adapters come from `source`, and the `GPU` object it asks (for the
    /// adapter's names).
    pub(in super::super) fn instance(source: &GpuSource) -> Result<(wgpu::Instance, JsValue)> {
        let global = js_sys::global();
        let gpu = match source {
            GpuSource::Navigator => {
                let gpu = get(&get(&global, "navigator"), "gpu");
                if gpu.is_undefined() || gpu.is_null() {
                    return Err(Error::BackendUnavailable(
                        "WebGPU unavailable: navigator.gpu is missing (this browser has no \
                         WebGPU, or it is switched off; Chromium on Linux needs \
                         --enable-unsafe-webgpu; in Node, pass a GPU: Gpgpu.create(\"webgpu\", \
                         { gpu }) with npm webgpu's create([]))"
                            .into(),
                    ));
                }
                gpu
            }
            GpuSource::Gpu(gpu) => {
                if !get(gpu, "requestAdapter").is_function() {
                    return Err(Error::Argument(
                        "option gpu must be a GPU object (navigator.gpu, or npm webgpu's \
                         create([]) in Node): it has no requestAdapter()"
                            .into(),
                    ));
                }
                gpu.clone()
            }
            GpuSource::Device(device) => stand_in(device)?,
        };
        let descriptor = wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        };
        let on_global = has(&global, "Window") || has(&global, "WorkerGlobalScope");
        if matches!(source, GpuSource::Navigator) && on_global {
            return Ok((wgpu::Instance::new(descriptor), gpu));
        }
        let navigator = Object::new();
        Reflect::set(&navigator, &"gpu".into(), &gpu).map_err(js_error)?;
        let mut lent = Lent::default();
        lent.lend(&global, "navigator", &navigator)?;
        if !on_global {
            lent.lend(&global, "Window", &Object::new())?;
        }
        let instance = wgpu::Instance::new(descriptor);
        drop(lent);
        Ok((instance, gpu))
    }

    /// A `GPU` whose one adapter gives `device`: the adapter's limits, features and info are the
    /// device's own.
    fn stand_in(device: &JsValue) -> Result<JsValue> {
        if !has(device, "queue") || !get(device, "createTexture").is_function() {
            return Err(Error::Argument(
                "option device must be a GPUDevice (from adapter.requestDevice())".into(),
            ));
        }
        let info = get(device, "adapterInfo");
        let info = if info.is_object() {
            info
        } else {
            Object::new().into()
        };
        let adapter = Object::new();
        for (key, value) in [
            ("features", get(device, "features")),
            ("limits", get(device, "limits")),
            ("info", info),
            ("requestDevice", resolving(device.clone())),
        ] {
            Reflect::set(&adapter, &key.into(), &value).map_err(js_error)?;
        }
        let gpu = Object::new();
        Reflect::set(&gpu, &"requestAdapter".into(), &resolving(adapter.into()))
            .map_err(js_error)?;
        Ok(gpu.into())
    }

    /// A function that resolves to `value`, whatever it is given.
    fn resolving(value: JsValue) -> JsValue {
        Closure::<dyn Fn(JsValue) -> Promise>::new(move |_| Promise::resolve(&value))
            .into_js_value()
    }

    fn js_error(e: JsValue) -> Error {
        Error::Gpu(format!("opening WebGPU failed: {e:?}"))
    }

    /// Properties of the global replaced for a moment, with what was there before; put back
    /// when dropped.
    #[derive(Default)]
    struct Lent {
        /// The global, each key and its own property descriptor before (undefined: none).
        saved: Vec<(JsValue, &'static str, JsValue)>,
    }

    impl Lent {
        fn lend(&mut self, global: &Object, key: &'static str, value: &JsValue) -> Result<()> {
            let before = Object::get_own_property_descriptor(global, &key.into());
            let descriptor = Object::new();
            for (k, v) in [
                ("value", value.clone()),
                ("configurable", true.into()),
                ("writable", true.into()),
            ] {
                Reflect::set(&descriptor, &k.into(), &v).map_err(js_error)?;
            }
            if !Reflect::define_property(global, &key.into(), &descriptor).unwrap_or(false) {
                return Err(Error::BackendUnavailable(format!(
                    "WebGPU unavailable: wgpu finds its GPU through the global {key}, which \
                     this global does not let texla replace for a moment"
                )));
            }
            self.saved.push((global.clone().into(), key, before));
            Ok(())
        }
    }

    impl Drop for Lent {
        fn drop(&mut self) {
            for (global, key, before) in self.saved.drain(..).rev() {
                let global: &Object = global.unchecked_ref();
                if before.is_undefined() {
                    let _ = Reflect::delete_property(global, &key.into());
                } else {
                    let _ = Reflect::define_property(global, &key.into(), before.unchecked_ref());
                }
            }
        }
    }
}
