//! Browser tests of float-float matrices (`texla::gpu::float_float`), each on both backends
//! against float64.
//!
//! Tolerances, stated per check: a 256 x 256 product of random matrices within 1e-12 of
//! max |C64| (max |C - C64| / max |C64|); integer products exact up to 2^48; add, sub and scale
//! within 2^-46 |x|-relative per element (two splits of 2^-49 each, one float-float rounding);
//! dot and A x within 2^-44 sum |x_i y_i| (a float-float sum of n products).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, keep_going, true_residual};
use texla::backend::BackendKind;
use texla::gpu::Gpu;
use texla::problems::poisson_1d;
use texla::reference::Rng;
use texla::solver::{cg, cg_float_float, CgOptions};
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
        gpu.float_float().upload(a, m, k).unwrap(),
        gpu.float_float().upload(b, k, n).unwrap(),
    );
    gpu.float_float()
        .read(&gpu.float_float().mul(&ga, &gb).unwrap())
        .await
        .unwrap()
}

/// Per-element check: |got - exact| <= bound[i], with the largest error / bound ratio printed.
fn assert_within(what: &str, got: &[f64], exact: &[f64], bound: &[f64]) {
    let mut worst = 0.0f64;
    for (i, ((g, e), b)) in got.iter().zip(exact).zip(bound).enumerate() {
        let err = (g - e).abs();
        assert!(
            err <= *b,
            "{what}: element {i} is {g}, float64 says {e} (error {err:e} > {b:e})"
        );
        worst = worst.max(err / b);
    }
    web_sys::console::log_1(&format!("{what}: worst error {worst:.2e} of the bound").into());
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

    async fn add_sub_scale_dot_and_matvec_against_float64(kind) {
        let gpu = device(kind).await;
        let mut rng = Rng::new(7);
        let (r, c) = (7, 5);
        let x = random(&mut rng, r * c, -3.0, 3.0);
        let y = random(&mut rng, r * c, -3.0, 3.0);
        let (gx, gy) = (gpu.float_float().upload(&x, r, c).unwrap(), gpu.float_float().upload(&y, r, c).unwrap());
        // Upload and read back: within the split's 2^-49 relative.
        let back = gpu.float_float().read(&gx).await.unwrap();
        let bound: Vec<f64> = x.iter().map(|v| v.abs() * 2f64.powi(-49)).collect();
        assert_within("upload/read", &back, &x, &bound);
        let sum_bound: Vec<f64> = x.iter().zip(&y).map(|(a, b)| (a.abs() + b.abs()) * 2f64.powi(-46)).collect();
        let add = gpu.float_float().read(&gpu.float_float().add(&gx, &gy).unwrap()).await.unwrap();
        let exact: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        assert_within("add", &add, &exact, &sum_bound);
        let sub = gpu.float_float().read(&gpu.float_float().sub(&gx, &gy).unwrap()).await.unwrap();
        let exact: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
        assert_within("sub", &sub, &exact, &sum_bound);
        let factor = -std::f64::consts::E;
        let scaled = gpu.float_float().read(&gpu.float_float().scale(&gx, factor).unwrap()).await.unwrap();
        let exact: Vec<f64> = x.iter().map(|a| a * factor).collect();
        let bound: Vec<f64> = exact.iter().map(|v| v.abs() * 2f64.powi(-46)).collect();
        assert_within("scale", &scaled, &exact, &bound);
        // x - x is exactly zero; x + 0 x is x as uploaded.
        assert!(gpu.float_float().read(&gpu.float_float().sub(&gx, &gx).unwrap()).await.unwrap().iter().all(|v| *v == 0.0));
        // dot and A x of order 1000: within (n + 2) 2^-46 sum |terms|.
        let n = 1000;
        let u = random(&mut rng, n, -1.0, 1.0);
        let v = random(&mut rng, n, -1.0, 1.0);
        let (gu, gv) = (gpu.float_float().upload(&u, n, 1).unwrap(), gpu.float_float().upload(&v, n, 1).unwrap());
        let dot = gpu.float_float().dot(&gu, &gv).await.unwrap();
        let exact: f64 = u.iter().zip(&v).map(|(a, b)| a * b).sum();
        let mag: f64 = u.iter().zip(&v).map(|(a, b)| (a * b).abs()).sum();
        assert_within("dot", &[dot], &[exact], &[(n + 2) as f64 * 2f64.powi(-46) * mag]);
        let norm = gpu.float_float().dot(&gu, &gu).await.unwrap();
        let exact: f64 = u.iter().map(|a| a * a).sum();
        assert_within("normSquared", &[norm], &[exact], &[(n + 2) as f64 * 2f64.powi(-46) * exact]);
        let m = 300;
        let a = random(&mut rng, m * n, -1.0, 1.0);
        let ga = gpu.float_float().upload(&a, m, n).unwrap();
        let ax = gpu.float_float().read(&gpu.float_float().mul_vec(&ga, &gu).unwrap()).await.unwrap();
        let exact = matmul64(&a, &u, m, n, 1);
        let bound: Vec<f64> = (0..m)
            .map(|i| (n + 2) as f64 * 2f64.powi(-46) * (0..n).map(|j| (a[i * n + j] * u[j]).abs()).sum::<f64>())
            .collect();
        assert_within("A x", &ax, &exact, &bound);
    }

    async fn float_float_matrices_past_one_texture_are_grids_of_tiles(kind) {
        // A tile limit of 64 texels: a 150 x 100 matrix is a 3 x 2 grid in both halves. Every
        // float-float operation runs tile by tile, within the bounds above.
        let gpu = device(kind).await;
        gpu.set_tile_limit(64).unwrap();
        let mut rng = Rng::new(11);
        let (m, k, n) = (150, 100, 70);
        let a = random(&mut rng, m * k, -1.0, 1.0);
        let b = random(&mut rng, k * n, -1.0, 1.0);
        let (ga, gb) = (gpu.float_float().upload(&a, m, k).unwrap(), gpu.float_float().upload(&b, k, n).unwrap());
        assert!(Gpu::is_tiled(&ga.hi) && Gpu::is_tiled(&ga.lo) && Gpu::is_tiled(&gb.hi));
        let back = gpu.float_float().read(&ga).await.unwrap();
        let bound: Vec<f64> = a.iter().map(|v| v.abs() * 2f64.powi(-49)).collect();
        assert_within("tiled upload/read", &back, &a, &bound);
        let c = gpu.float_float().mul(&ga, &gb).unwrap();
        assert!(Gpu::is_tiled(&c.hi), "a 150 x 70 product is two tiles high");
        let got = gpu.float_float().read(&c).await.unwrap();
        let exact = matmul64(&a, &b, m, k, n);
        assert!(relative(&got, &exact) <= 1e-12, "tiled product: {:e}", relative(&got, &exact));
        let twice = gpu.float_float().read(&gpu.float_float().add(&ga, &ga).unwrap()).await.unwrap();
        let exact2: Vec<f64> = a.iter().map(|v| 2.0 * v).collect();
        let bound2: Vec<f64> = a.iter().map(|v| v.abs() * 2f64.powi(-45)).collect();
        assert_within("tiled add", &twice, &exact2, &bound2);
        let x = random(&mut rng, k, -1.0, 1.0);
        let gx = gpu.float_float().upload(&x, k, 1).unwrap();
        let ax = gpu.float_float().read(&gpu.float_float().mul_vec(&ga, &gx).unwrap()).await.unwrap();
        let exact = matmul64(&a, &x, m, k, 1);
        let bound: Vec<f64> = (0..m)
            .map(|i| (k + 4) as f64 * 2f64.powi(-46) * (0..k).map(|j| (a[i * k + j] * x[j]).abs()).sum::<f64>())
            .collect();
        assert_within("tiled A x", &ax, &exact, &bound);
        let dot = gpu.float_float().dot(&ga, &ga).await.unwrap();
        let exact: f64 = a.iter().map(|v| v * v).sum();
        assert_within("tiled dot", &[dot], &[exact], &[(m * k + 8) as f64 * 2f64.powi(-46) * exact]);
        // CG on a 1D Poisson system of 130 unknowns: A is a 3 x 3 grid of tiles.
        let p = poisson_1d(130);
        let a64: Vec<f64> = p.a.iter().map(|&v| f64::from(v)).collect();
        let b64: Vec<f64> = p.b.iter().map(|&v| f64::from(v)).collect();
        let (pa, pb) = (gpu.float_float().upload(&a64, 130, 130).unwrap(), gpu.float_float().upload(&b64, 130, 1).unwrap());
        let options = CgOptions { tol: 1e-12, max_iter: 260, fused: false };
        let s = cg_float_float(&gpu, &pa, &pb, None, options, &mut keep_going).await.unwrap();
        let r = true_residual(&a64, &b64, &gpu.float_float().read(&s.x).await.unwrap());
        assert!(s.converged && r <= 1e-11, "tiled float-float CG: {} iterations, residual {r:e}", s.iterations);
    }

    async fn float_float_refuses_bad_input_clearly(kind) {
        let gpu = device(kind).await;
        let message = |e: texla::error::Error| e.to_string();
        let err = message(gpu.float_float().upload(&[1.0, 2.0, 3.0], 2, 2).unwrap_err());
        assert!(err.contains("3 values") && err.contains("2x2"), "{err}");
        let err = message(gpu.float_float().upload(&[1.0, f64::NAN, 3.0, 4.0], 2, 2).unwrap_err());
        assert!(err.contains("element 1") && err.contains("NaN"), "{err}");
        let err = message(gpu.float_float().upload(&[f64::INFINITY], 1, 1).unwrap_err());
        assert!(err.contains("finite"), "{err}");
        let err = message(gpu.float_float().upload(&[1e300], 1, 1).unwrap_err());
        assert!(err.contains("float32's range"), "{err}");
        let a = gpu.float_float().upload(&[1.0; 6], 2, 3).unwrap();
        let b = gpu.float_float().upload(&[1.0; 6], 3, 2).unwrap();
        assert!(message(gpu.float_float().add(&a, &b).unwrap_err()).contains("same shape"));
        assert!(message(gpu.float_float().mul(&a, &a).unwrap_err()).contains("inner dimensions"));
        assert!(message(gpu.float_float().mul_vec(&a, &a).unwrap_err()).contains("3x1 vector"));
        assert!(message(gpu.float_float().scale(&a, f64::NAN).unwrap_err()).contains("finite"));
        assert!(message(gpu.float_float().dot(&a, &b).await.unwrap_err()).contains("same shape"));
        // Still usable afterwards.
        let c = gpu.float_float().mul(&a, &b).unwrap();
        assert_eq!(gpu.float_float().read(&c).await.unwrap(), vec![3.0; 4]);
    }

    async fn float_float_cg_reaches_1e_11_on_poisson_512_where_float32_stalls(kind) {
        let gpu = device(kind).await;
        let n = 512;
        let p = poisson_1d(n);
        let a64: Vec<f64> = p.a.iter().map(|&v| f64::from(v)).collect();
        let b64: Vec<f64> = p.b.iter().map(|&v| f64::from(v)).collect();
        let options = |max_iter| CgOptions { tol: 1e-12, max_iter, fused: false };
        let (a, b) = (gpu.float_float().upload(&a64, n, n).unwrap(), gpu.float_float().upload(&b64, n, 1).unwrap());
        let start = js_sys::Date::now();
        let s = cg_float_float(&gpu, &a, &b, None, options(2 * n), &mut keep_going).await.unwrap();
        let ms = js_sys::Date::now() - start;
        let x = gpu.float_float().read(&s.x).await.unwrap();
        let ff = true_residual(&a64, &b64, &x);
        let (a32, b32) = common::upload(&gpu, &p);
        let s32 = cg(&gpu, &a32, &b32, None, options(n), &mut keep_going).await.unwrap();
        let x32: Vec<f64> = gpu.read(&s32.x).await.unwrap().iter().map(|&v| f64::from(v)).collect();
        let f32_residual = true_residual(&a64, &b64, &x32);
        let best32 = s32.residuals.iter().fold(f64::INFINITY, |m, v| m.min(*v));
        web_sys::console::log_1(&format!(
            "{}: float-float CG {} iterations ({ms} ms), true residual {ff:e}, recurrence {:e}; \
             float32 CG {} iterations, true residual {f32_residual:e}, best recurrence {best32:e}",
            kind.name(), s.iterations, s.residuals.last().unwrap(), s32.iterations
        ).into());
        assert!(ff <= 1e-11, "float-float CG: true relative residual {ff:e}");
        assert!(s.converged, "float-float CG stopped at {:e}", s.residuals.last().unwrap());
        assert!(f32_residual >= 1e-6, "float32 CG: true relative residual {f32_residual:e}");
        // Bad input: fused, shapes.
        let fused = CgOptions { fused: true, ..options(10) };
        let err = cg_float_float(&gpu, &a, &b, None, fused, &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("fused"), "{err}");
        let err = cg_float_float(&gpu, &b, &b, None, options(10), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("square"), "{err}");
    }
}
