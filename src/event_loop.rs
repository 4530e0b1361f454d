//! The page's clock and its event loop, for work that must not hold the page: long solves give
//! it turns, WebGL2 waits for the GPU between turns, WebGPU waits a turn or two for a loss to be
//! reported. Natively (the native benchmark) there is no event loop: the clock reads 0 and a
//! turn passes at once.

/// Milliseconds of the page's clock (`Date.now()`); always 0 natively.
pub(crate) fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}

/// Waits for one turn of the browser's event loop (`setTimeout(0)`), so that the page repaints
/// and its events (a Cancel click) get through. Passes at once where there is no `setTimeout`.
pub(crate) async fn next_turn() {
    #[cfg(target_arch = "wasm32")]
    {
        let pause = js_sys::Promise::new(&mut |resolve, _| {
            let set_timeout = js_sys::Reflect::get(&js_sys::global(), &"setTimeout".into())
                .ok()
                .and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok());
            match set_timeout {
                Some(f) => {
                    let _ = f.call2(&wasm_bindgen::JsValue::NULL, &resolve, &0.into());
                }
                None => {
                    let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
                }
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(pause).await;
    }
}

/// The size of the next chunk of long work after one of `chunk` steps took `ms`: doubled where
/// it took under half of `target` ms, halved (to 1 at least) where over twice it, so that the
/// page gets a turn about every `target` ms of GPU time.
pub(crate) fn next_chunk(chunk: usize, ms: f64, target: f64) -> usize {
    if ms < target / 2.0 {
        chunk.saturating_mul(2)
    } else if ms > 2.0 * target {
        (chunk / 2).max(1)
    } else {
        chunk
    }
}
