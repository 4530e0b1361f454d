//! Browser tests of float-float matrices (`texla::gpu::float_float`), each on both backends
//! against float64.
//!
//! Tolerances, stated per check: a 256 x 256 product of random matrices within 1e-12 of
//! max |C64| (max |C - C64| / max |C64|); integer products exact up to 2^48; add, sub and scale
//! within 2^-46 |x|-relative per element (two splits of 2^-49 each, one float-float rounding);
//! dot and A x within 2^-44 sum |x_i y_i| (a float-float sum of n products).
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use texla::backend::BackendKind;
use texla::gpu::Gpu;
use texla::reference::Rng;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `len` float64 values uniform in [lo, hi), all 53 bits random.
fn random(rng: &mut Rng, len: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..len)
        .map(|_| {
            let fine = rng.next_f64() + rng.next_f64() * 2f64.powi(-32);
            lo + (hi - lo) * fine
        })
        .collect()
}

/// `C = A B` in float64, row-major.
fn matmul64(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let aip = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += aip * b[p * n + j];
            }
        }
    }
    c
}

/// max |got - exact| / max |exact|.
fn relative(got: &[f64], exact: &[f64]) -> f64 {
    assert_eq!(got.len(), exact.len());
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let err = got.iter().zip(exact).fold(0.0f64, |m, (g, e)| {
        if g.is_nan() {
            f64::INFINITY
        } else {
            m.max((g - e).abs())
        }
    });
    err / scale
}

async fn product(gpu: &Gpu, a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let (ga, gb) = (
        gpu.upload_f64(a, m, k).unwrap(),
        gpu.upload_f64(b, k, n).unwrap(),
    );
    gpu.read_f64(&gpu.mul_ff(&ga, &gb).unwrap()).await.unwrap()
}

on_both_backends! {
    async fn float_float_product_of_random_256_matrices_within_1e_12(kind) {
        let gpu = device(kind).await;
        let mut rng = Rng::new(18);
        let n = 256;
        let a = random(&mut rng, n * n, -1.0, 1.0);
        let b = random(&mut rng, n * n, -1.0, 1.0);
        let got = product(&gpu, &a, &b, n, n, n).await;
        let err = relative(&got, &matmul64(&a, &b, n, n, n));
        web_sys::console::log_1(&format!("{}: 256^3 float-float product, relative error {err:e}", kind.name()).into());
        assert!(err <= 1e-12, "relative error {err:e}");
        // Odd shapes: the k % 4 tail, padding rows, one column.
        for (m, k, n) in [(1, 1, 1), (7, 5, 3), (13, 29, 7), (37, 70, 1)] {
            let a = random(&mut rng, m * k, -2.0, 2.0);
            let b = random(&mut rng, k * n, -2.0, 2.0);
            let err = relative(&product(&gpu, &a, &b, m, k, n).await, &matmul64(&a, &b, m, k, n));
            assert!(err <= 1e-13, "{m}x{k}x{n}: relative error {err:e}");
        }
    }

    async fn integer_products_are_exact_up_to_2_pow_48(kind) {
        let gpu = device(kind).await;
        let mut rng = Rng::new(48);
        // Entries in [2^19, 2^20): every product below 2^40, 256 of them summing to just
        // under 2^48 (exact in float64, so the float64 product is the exact answer).
        let n = 256;
        let int = |rng: &mut Rng, len| -> Vec<f64> {
            (0..len).map(|_| 524_288.0 + (524_288.0 * rng.next_f64()).floor()).collect()
        };
        let (a, b) = (int(&mut rng, n * n), int(&mut rng, n * n));
        let exact = matmul64(&a, &b, n, n, n);
        let largest = exact.iter().fold(0.0f64, |m, v| m.max(*v));
        assert!(largest < 2f64.powi(48) && largest > 2f64.powi(47), "{largest}");
        let got = product(&gpu, &a, &b, n, n, n).await;
        let wrong = got.iter().zip(&exact).filter(|(g, e)| g != e).count();
        assert_eq!(wrong, 0, "{wrong} of {} elements differ; first {:?}", n * n,
            got.iter().zip(&exact).find(|(g, e)| g != e));
        // Mixed signs (cancellation) on an odd shape.
        let (m, k, n) = (37, 70, 33);
        let signed = |rng: &mut Rng, len| -> Vec<f64> {
            (0..len).map(|_| (2_097_152.0 * rng.next_f64()).floor() - 1_048_576.0).collect()
        };
        let (a, b) = (signed(&mut rng, m * k), signed(&mut rng, k * n));
        assert_eq!(product(&gpu, &a, &b, m, k, n).await, matmul64(&a, &b, m, k, n));
    }
}
