//! Float-float against float32 speed, headless here (SwiftShader, a CPU emulator): the 256 and
//! 512 products and A x of those orders, on both backends, ms from the call to the end of the
//! GPU's work (`Gpu::finish`), operands already on the GPU, median of 5 after a warm-up (A x:
//! 20 calls back to back per run, divided out).
//! Ignored in the ordinary runs (it checks nothing but that the runs finish); run it with
//! `wasm-pack test --headless --chrome --test float_float_bench -- --include-ignored`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use texla::backend::BackendKind;
use texla::gpu::Gpu;
use texla::reference::Rng;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Median ms of 5 runs of `op` (after one warm-up), each timed to the end of the GPU's work;
/// `reps` calls back to back per run (the clock counts whole ms), divided out.
async fn time<T>(gpu: &Gpu, reps: usize, mut op: impl FnMut() -> T) -> f64 {
    let _ = op();
    gpu.finish().await.unwrap();
    let mut ms = Vec::new();
    for _ in 0..5 {
        let start = js_sys::Date::now();
        let results: Vec<T> = (0..reps).map(|_| op()).collect();
        gpu.finish().await.unwrap();
        ms.push((js_sys::Date::now() - start) / reps as f64);
        drop(results);
    }
    ms.sort_by(f64::total_cmp);
    ms[2]
}

#[wasm_bindgen_test]
#[ignore]
async fn float_float_against_float32_speed() {
    let mut lines = vec![];
    for kind in [BackendKind::WebGpu, BackendKind::WebGl2] {
        let gpu = device(kind).await;
        for n in [256, 512] {
            let mut rng = Rng::new(n as u32);
            let a = rng.matrix(n * n, -1.0, 1.0);
            let x = rng.matrix(n, -1.0, 1.0);
            let a64: Vec<f64> = a.iter().map(|&v| f64::from(v) / 3.0).collect();
            let x64: Vec<f64> = x.iter().map(|&v| f64::from(v) / 3.0).collect();
            let (ga, gx) = (gpu.upload(&a, n, n).unwrap(), gpu.upload(&x, n, 1).unwrap());
            let (fa, fx) = (
                gpu.upload_f64(&a64, n, n).unwrap(),
                gpu.upload_f64(&x64, n, 1).unwrap(),
            );
            let mul = time(&gpu, 1, || gpu.mul(&ga, &ga).unwrap()).await;
            let teaching = time(&gpu, 1, || gpu.mul_teaching(&ga, &ga).unwrap()).await;
            let mul_ff = time(&gpu, 1, || gpu.mul_ff(&fa, &fa).unwrap()).await;
            let mv = time(&gpu, 20, || gpu.mul_vec(&ga, &gx).unwrap()).await;
            let mv_ff = time(&gpu, 20, || gpu.mul_vec_ff(&fa, &fx).unwrap()).await;
            lines.push(format!(
                "{} n={n}: A B float32 {mul:.1} ms (fast kernel; teaching kernel {teaching:.1}), \
                 float-float {mul_ff:.1} ms ({:.1}x the fast, {:.1}x the teaching); \
                 A x float32 {mv:.2} ms, float-float {mv_ff:.2} ms ({:.1}x)",
                kind.name(),
                mul_ff / mul,
                mul_ff / teaching,
                mv_ff / mv
            ));
        }
    }
    for l in &lines {
        web_sys::console::log_1(&l.into());
    }
}
