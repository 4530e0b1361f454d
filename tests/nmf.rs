//! Browser tests of the thesis's NMF, on both backends against the same updates in float64 from
//! the same start (`texla::nmf::reference`). Tolerance: every entry of U and V within 1e-3 of
//! the largest entry after 20 iterations (float32 products of inner dimension <= 60, compounded
//! over 40 multiplicative updates; measured below 1e-4).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, keep_going};
use texla::backend::BackendKind;
use texla::gpu::Gpu;
use texla::nmf::reference::{self, Dense};
use texla::nmf::{factorize, parts_images, NmfOptions, Order, Rule};
use texla::reference::Rng;
use texla::Gpgpu;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// F: 60 pixels x 40 images of the generated parts (the first 60 pixel rows), U0 and V0 in
/// (0.1, 1), all from fixed seeds.
fn problem(k: usize) -> (Dense, Dense, Dense) {
    let (m, n) = (60, 40);
    let f = parts_images(n, 7)[..m * n]
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    let mut rng = Rng::new(3);
    let mut start = |rows| {
        Dense::new(
            rows,
            k,
            rng.matrix(rows * k, 0.1, 1.0)
                .into_iter()
                .map(f64::from)
                .collect(),
        )
    };
    let (u, v) = (start(m), start(n));
    (Dense::new(m, n, f), u, v)
}

fn upload(gpu: &Gpu, d: &Dense) -> texla::matrix::Matrix {
    let data: Vec<f32> = d.data.iter().map(|&x| x as f32).collect();
    gpu.upload(&data, d.rows, d.cols).unwrap()
}

/// `{key: value, ...}` for the JS API.
fn options(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (k, v) in pairs {
        js_sys::Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    o.into()
}

fn get(o: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(o, &key.into()).unwrap()
}

on_both_backends! {
    async fn nmf_runs_across_tiles(kind) {
        // Tiles of 16 texels: F (60 x 40) is a grid of 4 x 3 tiles, V (40 x 6) of 3; the same
        // float64 bound as below.
        let gpu = device(kind).await;
        gpu.set_tile_limit(16).unwrap();
        let (f, u0, v0) = problem(6);
        let gf = upload(gpu.as_ref(), &f);
        assert!(Gpu::is_tiled(&gf));
        let options = NmfOptions { iterations: 10, ..Default::default() };
        let (gu, gv) = (upload(gpu.as_ref(), &u0), upload(gpu.as_ref(), &v0));
        let got = factorize(gpu.as_ref(), &gf, (&gu, &gv), options, &mut keep_going).await.unwrap();
        let (u, v) = reference::iterate(&f, u0.clone(), v0.clone(), &options, 10);
        for (name, gpu_x, exact) in [("U", &got.u, &u), ("V", &got.v, &v)] {
            let values = gpu.read(gpu_x).await.unwrap();
            let scale = exact.data.iter().fold(0.0f64, |a, b| a.max(b.abs()));
            let worst = values.iter().zip(&exact.data).map(|(g, e)| (f64::from(*g) - e).abs()).fold(0.0, f64::max);
            assert!(worst <= 1e-3 * scale, "{name} off by {worst:e} of {scale:e}");
        }
    }

    async fn js_nmf_factorises_the_parts_images_and_rejects_bad_input(kind) {
        let js = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let (m, n) = (361, 64);
        let images = Gpgpu::parts_images(n as f64, Some(2.0)).unwrap();
        let f = js.upload(&images.clone().into(), m as f64, n as f64, JsValue::UNDEFINED).unwrap();
        let progress = js_sys::Array::new();
        let record = wasm_bindgen::closure::Closure::<dyn FnMut(f64, f64, JsValue)>::new({
            let progress = progress.clone();
            move |i: f64, _: f64, _: JsValue| { progress.push(&i.into()); }
        });
        let opts = options(&[("iterations", 30.into()), ("checkEvery", 10.into()), ("onProgress", record.as_ref().clone())]);
        let r = JsFuture::from(js.nmf(&f, 8.0, opts)).await.unwrap();
        assert_eq!(get(&r, "iterations").as_f64(), Some(30.0));
        let errors = js_sys::Float64Array::from(get(&r, "errors")).to_vec();
        let checks = js_sys::Float64Array::from(get(&r, "checks")).to_vec();
        assert_eq!(checks, vec![0.0, 10.0, 20.0, 30.0]);
        assert_eq!(progress.length(), 3, "onProgress at each check after the start");
        let total: f64 = images.to_vec().iter().map(|&x| f64::from(x).powi(2)).sum();
        assert!(errors[3] < 0.2 * total && errors[3] < errors[0], "{errors:?} of ||F||^2 = {total}");
        let u = get(&r, "u");
        assert_eq!((get(&u, "rows").as_f64(), get(&u, "cols").as_f64()), (Some(361.0), Some(8.0)));
        assert!(get(&r, "msPerIteration").as_f64().unwrap() > 0.0);
        let reject = |f: &texla::GpuMatrix, k: f64, opts: JsValue| JsFuture::from(js.nmf(f, k, opts));
        let message = |e: JsValue| String::from(js_sys::Error::from(e).message());
        let negative = js.upload(&js_sys::Float32Array::from(&[1.0f32, -2.0, 3.0, 4.0][..]).into(), 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        assert!(message(reject(&negative, 1.0, JsValue::UNDEFINED).await.unwrap_err()).contains("F non-negative and finite: it has a negative entry"));
        let nan = js.upload(&js_sys::Float32Array::from(&[1.0f32, f32::NAN, 3.0, 4.0][..]).into(), 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        assert!(message(reject(&nan, 1.0, JsValue::UNDEFINED).await.unwrap_err()).contains("infinite or NaN"));
        assert!(message(reject(&f, 65.0, JsValue::UNDEFINED).await.unwrap_err()).contains("k must be from 1 to min(m, n) = 64"));
        let bad_rule = options(&[("rule", "kl".into())]);
        assert!(message(reject(&f, 4.0, bad_rule).await.unwrap_err()).contains("unknown rule \"kl\""));
        let wrong_u0 = js.upload(&js_sys::Float32Array::new_with_length(20).into(), 5.0, 4.0, JsValue::UNDEFINED).unwrap();
        let bad_start = options(&[("u0", wrong_u0.into())]);
        assert!(message(reject(&f, 4.0, bad_start).await.unwrap_err()).contains("u0 must be 361x4"));
    }

    async fn nmf_follows_float64_for_every_rule_and_order(kind) {
        let gpu = device(kind).await;
        let k = 6;
        let (f, u0, v0) = problem(k);
        let gf = upload(gpu.as_ref(), &f);
        for rule in [Rule::Euclidean, Rule::Divergence] {
            for (order, normalize) in [(Order::Alternating, false), (Order::Simultaneous, true)] {
                let options = NmfOptions { iterations: 20, rule, order, normalize, check_every: 1, ..Default::default() };
                let (gu, gv) = (upload(gpu.as_ref(), &u0), upload(gpu.as_ref(), &v0));
                let got = factorize(gpu.as_ref(), &gf, (&gu, &gv), options, &mut keep_going).await.unwrap();
                assert_eq!(got.iterations, 20);
                assert_eq!(got.errors.len(), 21, "a check per iteration and the start");
                let (u, v) = reference::iterate(&f, u0.clone(), v0.clone(), &options, 20);
                for (name, gpu_x, exact) in [("U", &got.u, &u), ("V", &got.v, &v)] {
                    let values = gpu.read(gpu_x).await.unwrap();
                    let scale = exact.data.iter().fold(0.0f64, |a, b| a.max(b.abs()));
                    let worst = values.iter().zip(&exact.data).map(|(g, e)| (f64::from(*g) - e).abs()).fold(0.0, f64::max);
                    assert!(worst <= 1e-3 * scale, "{kind:?} {rule:?} {order:?}: {name} off by {worst:e} of {scale:e}");
                    assert!(values.iter().all(|&x| x >= 0.0), "{kind:?} {rule:?} {order:?}: {name} stays non-negative");
                }
                let exact_error = reference::error(&f, &u, &v);
                let (_, last) = *got.errors.last().unwrap();
                assert!((last - exact_error).abs() <= 1e-3 * exact_error.max(1e-6), "{kind:?} {rule:?} {order:?}: error {last} against {exact_error}");
                if rule == Rule::Euclidean && order == Order::Alternating {
                    // Lee and Seung's alternating least-squares updates never raise the cost
                    // (float32 rounding allowed: 1e-5 relative).
                    for w in got.errors.windows(2) {
                        assert!(w[1].1 <= w[0].1 * (1.0 + 1e-5), "{kind:?}: cost rose from {} to {} at iteration {}", w[0].1, w[1].1, w[1].0);
                    }
                }
            }
        }
    }

    async fn nmf_refuses_bad_shapes_and_k(kind) {
        let gpu = device(kind).await;
        let f = gpu.fill(10, 8, 1.0).unwrap();
        let run = |u: (usize, usize), v: (usize, usize)| {
            let gpu = gpu.as_ref();
            let f = &f;
            async move {
                let (u, v) = (gpu.fill(u.0, u.1, 1.0).unwrap(), gpu.fill(v.0, v.1, 1.0).unwrap());
                factorize(gpu, f, (&u, &v), NmfOptions::default(), &mut keep_going).await.unwrap_err().to_string()
            }
        };
        assert!(run((10, 9), (8, 9)).await.contains("k must be from 1 to min(m, n) = 8"));
        assert!(run((9, 3), (8, 3)).await.contains("u0 must be 10x3"));
        assert!(run((10, 3), (8, 4)).await.contains("v0 must be 8x3"));
    }
}
