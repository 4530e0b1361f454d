//! Browser tests of the wall's input through its JavaScript API, each on both backends: a
//! throw, a push or a setting made while a frame is in flight reaches the next frame (issue 33:
//! on WebGPU, whose read-back is asynchronous, clicks on the running wall threw no ball).
#![cfg(target_arch = "wasm32")]

mod common;

use js_sys::{Function, Promise, Reflect};
use texla::backend::BackendKind;
use texla::{Gpgpu, Wall};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A number of `wall.stats()`.
fn stat(wall: &Wall, name: &str) -> f64 {
    Reflect::get(&wall.stats(), &name.into())
        .unwrap()
        .as_f64()
        .unwrap_or_else(|| panic!("stats().{name} is no number"))
}

/// Lets the event loop turn once (a `setTimeout(0)`): a `step()` just called has begun its
/// frame by then, and waits for the GPU where the backend reads back asynchronously.
async fn turn() {
    let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
        .unwrap()
        .unchecked_into();
    let tick = Promise::new(&mut |resolve, _| {
        set_timeout.call1(&JsValue::NULL, &resolve).unwrap();
    });
    JsFuture::from(tick).await.unwrap();
}

/// A wall whose frames are short on a CPU-emulated GPU.
async fn wall_on(kind: BackendKind) -> Wall {
    let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED)
        .await
        .unwrap();
    let wall = gpu.wall(None, None).unwrap();
    wall.set_iterations(Some(20.0)).unwrap();
    wall
}

on_both_backends! {
    async fn throws_during_frames_in_flight_all_reach_the_next_frame(kind) {
        let wall = wall_on(kind).await;
        let mut in_flight = 0;
        for k in 0..4 {
            let step = wall.step();
            turn().await;
            // Thrown before the frame ended (its stats not yet in), or right after on a
            // backend that finished it within the turn.
            let frame = stat(&wall, "frame");
            in_flight += usize::from(frame == f64::from(k));
            wall.throw_ball(0.1 * f64::from(k), -0.1).unwrap();
            assert_eq!(stat(&wall, "throws"), f64::from(k + 1), "shown at once");
            JsFuture::from(step).await.unwrap();
            assert_eq!(stat(&wall, "throws"), f64::from(k + 1), "throw {k}: kept, once");
            assert_eq!(stat(&wall, "bodies"), 61.0, "the 60 cubes and one ball");
        }
        if kind == BackendKind::WebGpu {
            // WebGPU reads back asynchronously: every throw came while the frame waited.
            assert_eq!(in_flight, 4, "throws made in flight");
        }
        // The next frame moves the last ball: it starts where it was thrown, at 25 m/s.
        let before = wall.positions().to_vec();
        JsFuture::from(wall.step()).await.unwrap();
        let after = wall.positions().to_vec();
        let n = before.len();
        let moved = (0..3).map(|i| (after[n - 3 + i] - before[n - 3 + i]).powi(2)).sum::<f64>().sqrt();
        assert!((moved - 25.0 / 60.0).abs() < 0.05, "the ball moved {moved} m in a frame");
    }

    async fn pushes_settings_and_resets_during_a_frame_behave(kind) {
        let wall = wall_on(kind).await;
        // A push and a new iteration count while a frame is in flight: both kept.
        let step = wall.step();
        turn().await;
        assert!(wall.push(0.05, -0.2, None).unwrap(), "a cube under the view's middle");
        wall.set_iterations(Some(7.0)).unwrap();
        JsFuture::from(step).await.unwrap();
        assert_eq!(stat(&wall, "pushes"), 1.0);
        JsFuture::from(wall.step()).await.unwrap();
        assert_eq!(stat(&wall, "iterations"), 7.0, "the next frame ran the new setting");
        // A throw then a reset while a frame is in flight: the frame is abandoned, and the
        // ball goes with the old wall.
        let step = wall.step();
        turn().await;
        wall.throw_ball(0.0, 0.0).unwrap();
        wall.reset(None, None).unwrap();
        let e = JsFuture::from(step).await;
        if let Err(e) = e {
            let message = String::from(js_sys::Error::from(e).message());
            assert!(message.contains("cancelled or the wall reset"), "{message}");
        }
        assert_eq!((stat(&wall, "throws"), stat(&wall, "bodies")), (0.0, 60.0));
        assert_eq!(stat(&wall, "frame"), 0.0);
    }
}
