#![cfg(target_arch = "wasm32")]
mod common;
use common::device;
use texla::backend::BackendKind;
use texla::physics::{gpu_frame, wall, Settings, WallSpec, World};
use wasm_bindgen_test::*;
wasm_bindgen_test_configure!(run_in_browser);
fn now() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}
#[wasm_bindgen_test]
async fn time_frames() {
    let mut out = Vec::new();
    for kind in [BackendKind::WebGl2, BackendKind::WebGpu] {
        let gpu = device(kind).await;
        let mut world = World::new(wall(&WallSpec::default()), Settings::default());
        for _ in 0..5 {
            gpu_frame(gpu.as_ref(), &mut world, &now).await.unwrap();
        }
        let t = now();
        let mut solve = 0.0;
        for _ in 0..30 {
            let (_, _, s) = gpu_frame(gpu.as_ref(), &mut world, &now).await.unwrap();
            solve += s;
        }
        let ms = (now() - t) / 30.0;
        let t = now();
        for _ in 0..30 {
            let lcp = world.begin_frame();
            std::hint::black_box(lcp.lambda_max());
        }
        let cpu = (now() - t) / 30.0;
        out.push(format!(
            "TIME {kind:?}: {ms:.1} ms/frame, solve {:.1}, begin_frame+lambda {cpu:.1}",
            solve / 30.0
        ));
    }
    panic!("{}", out.join("\n"));
}
