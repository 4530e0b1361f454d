//! Browser tests of seed 004's NMF, on both backends against the same updates in float64 from
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

on_both_backends! {
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
