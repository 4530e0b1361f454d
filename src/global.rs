//! What texla takes from JavaScript's global scope, in one place: a page's `Window`, a dedicated
//! Worker's `WorkerGlobalScope` or Node's `globalThis`. Nothing here names `window` or
//! `document` as a given: a canvas is a `<canvas>` element where there is a document and an
//! `OffscreenCanvas` where there is none (a Worker), and a page may hand texla either, such as
//! one it moved to a Worker with `transferControlToOffscreen()`.

use wasm_bindgen::prelude::*;

use crate::error::{Error, Result};

#[wasm_bindgen]
extern "C" {
    /// A canvas texla draws into: an `HTMLCanvasElement` or an `OffscreenCanvas`, which share
    /// all that texla uses of them (their size, `getContext`, and the WebGL2 context's loss
    /// events).
    #[wasm_bindgen(
        extends = web_sys::EventTarget,
        typescript_type = "HTMLCanvasElement | OffscreenCanvas"
    )]
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub type Canvas;

    /// The canvas's width in pixels.
    #[wasm_bindgen(method, getter)]
    pub fn width(this: &Canvas) -> u32;

    /// The canvas's height in pixels.
    #[wasm_bindgen(method, getter)]
    pub fn height(this: &Canvas) -> u32;

    /// `canvas.getContext(kind, options)`: null when the canvas has a context of another kind.
    #[wasm_bindgen(method, catch, js_name = getContext)]
    pub fn get_context(
        this: &Canvas,
        kind: &str,
        options: &JsValue,
    ) -> std::result::Result<Option<js_sys::Object>, JsValue>;

    /// The 2D context of a [`Canvas`] (`CanvasRenderingContext2D` or
    /// `OffscreenCanvasRenderingContext2D`).
    #[derive(Debug, Clone)]
    pub type Context2d;

    /// Puts the `width x height` pixels of `image` from (`dirty_x`, `dirty_y`) at (`dx`, `dy`).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method, catch, js_name = putImageData)]
    pub fn put_image_data(
        this: &Context2d,
        image: &web_sys::ImageData,
        dx: f64,
        dy: f64,
        dirty_x: f64,
        dirty_y: f64,
        width: f64,
        height: f64,
    ) -> std::result::Result<(), JsValue>;
}

impl Canvas {
    /// A new 300 x 150 canvas: an element of the page's document, or an `OffscreenCanvas` where
    /// there is no document (a Worker).
    #[cfg(target_arch = "wasm32")]
    pub fn new() -> Result<Canvas> {
        let failed =
            |why: &str| Error::BackendUnavailable(format!("no canvas to draw into: {why}"));
        if let Some(document) = property("document") {
            let make = js_sys::Reflect::get(&document, &"createElement".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
            return make
                .and_then(|f| f.call1(&document, &"canvas".into()).ok())
                .map(JsCast::unchecked_into)
                .ok_or_else(|| failed("document.createElement(\"canvas\") failed"));
        }
        let offscreen = property("OffscreenCanvas")
            .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
            .ok_or_else(|| failed("there is neither a document nor OffscreenCanvas here"))?;
        let size = js_sys::Array::of2(&300.into(), &150.into());
        js_sys::Reflect::construct(&offscreen, &size)
            .map(JsCast::unchecked_into)
            .map_err(|e| failed(&format!("new OffscreenCanvas() threw {e:?}")))
    }

    /// Natively there is no canvas.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Canvas> {
        Err(Error::BackendUnavailable(
            "no canvas to draw into: canvases exist only in a browser".into(),
        ))
    }

    /// `value` as a canvas, if it is one (anything with `getContext`, a `width` and a
    /// `height`, as both kinds have), else a clear error naming `what`.
    pub fn from_js(value: JsValue, what: &str) -> Result<Canvas> {
        let has =
            |key: &str| js_sys::Reflect::get(&value, &key.into()).is_ok_and(|v| !v.is_undefined());
        if value.is_object() && has("getContext") && has("width") && has("height") {
            Ok(value.unchecked_into())
        } else {
            let got = match value.js_typeof().as_string().as_deref() {
                Some("object") if !value.is_null() => "an object that is no canvas".to_string(),
                _ if value.is_null() => "null".to_string(),
                Some(kind) => format!("a {kind}"),
                None => "something else".to_string(),
            };
            Err(Error::Argument(format!(
                "{what} must be an HTMLCanvasElement or an OffscreenCanvas, got {got}"
            )))
        }
    }

    /// The canvas's 2D context, made on first use.
    pub fn context_2d(&self) -> Result<Context2d> {
        self.get_context("2d", &JsValue::UNDEFINED)
            .ok()
            .flatten()
            .map(JsCast::unchecked_into)
            .ok_or_else(|| {
                Error::Gpu("the canvas gives no 2D context (it has one of another kind)".into())
            })
    }
}

/// The global scope's property `name`, if it has one that is neither undefined nor null.
#[cfg(target_arch = "wasm32")]
pub(crate) fn property(name: &str) -> Option<JsValue> {
    js_sys::Reflect::get(&js_sys::global(), &name.into())
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}
