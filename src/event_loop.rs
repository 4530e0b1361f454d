//! The page's clock and its event loop, for work that must not hold the page: long solves give
//! it turns, WebGL2 waits for the GPU between turns, WebGPU waits a turn or two for a loss to be
//! reported. Natively (the native benchmark) there is no event loop: the clock reads 0 and a
//! turn passes at once.

/// Milliseconds of the page's clock: the global `performance.now()` (a page, a worker or Node,
/// to the microsecond), else `Date.now()` (to the millisecond); always 0 natively.
pub(crate) fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        crate::global::property("performance")
            .filter(|p| p.is_object())
            .map_or_else(js_sys::Date::now, |p| {
                p.unchecked_into::<web_sys::Performance>().now()
            })
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}

/// Waits for one turn of the browser's event loop, so that the page repaints and its events (a
/// Cancel click) get through: a message to itself on a `MessageChannel` (a task of its own,
/// without the 4 ms that nested `setTimeout(0)`s are held to), else `setTimeout(0)`; passes at
/// once where there is neither.
pub(crate) async fn next_turn() {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::{JsCast, JsValue};
        let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).ok();
        let channel = crate::global::property("MessageChannel")
            .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
            .and_then(|c| js_sys::Reflect::construct(&c, &js_sys::Array::new()).ok());
        let pause = js_sys::Promise::new(&mut |resolve, _| {
            let post = channel.as_ref().and_then(|channel| {
                let (receiver, sender) = (get(channel, "port1")?, get(channel, "port2")?);
                js_sys::Reflect::set(&receiver, &"onmessage".into(), &resolve).ok()?;
                let post = get(&sender, "postMessage")?
                    .dyn_into::<js_sys::Function>()
                    .ok()?;
                post.call1(&sender, &JsValue::NULL).ok()
            });
            if post.is_none() {
                set_timeout(&resolve, 0.0);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(pause).await;
        // In Node a port with a listener keeps the process from exiting: both are closed.
        if let Some(channel) = &channel {
            for port in ["port1", "port2"].iter().filter_map(|k| get(channel, k)) {
                let close = get(&port, "close").and_then(|f| f.dyn_into::<js_sys::Function>().ok());
                if let Some(close) = close {
                    let _ = close.call0(&port);
                }
            }
        }
    }
}

/// Waits about `ms` milliseconds without holding the page (`setTimeout`, which browsers hold
/// to 4 ms at least once nested); passes at once where there is no timer (natively).
pub(crate) async fn sleep_ms(ms: f64) {
    #[cfg(target_arch = "wasm32")]
    {
        let pause = js_sys::Promise::new(&mut |resolve, _| set_timeout(&resolve, ms));
        let _ = wasm_bindgen_futures::JsFuture::from(pause).await;
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = ms;
}

/// Calls `f` after `ms` milliseconds by the global `setTimeout`, or at once where there is none.
#[cfg(target_arch = "wasm32")]
fn set_timeout(f: &js_sys::Function, ms: f64) {
    use wasm_bindgen::{JsCast, JsValue};
    let timer =
        crate::global::property("setTimeout").and_then(|t| t.dyn_into::<js_sys::Function>().ok());
    match timer {
        Some(timer) => {
            let _ = timer.call2(&JsValue::NULL, f, &ms.into());
        }
        None => {
            let _ = f.call0(&JsValue::NULL);
        }
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

/// Runs a texla future to completion natively (the native benchmark, native tests): the backend
/// waits for the GPU inside, so texla's futures complete on their first poll and a waker that
/// does nothing is enough.
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
