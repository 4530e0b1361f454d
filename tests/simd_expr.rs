//! Browser tests of the SIMD-optimization paper on the GPU, on BOTH backends: `y = A x + b` by the kernel generated
//! from the expression's program (coefficients baked in), for the paper's examples and random
//! sparse expressions, in natural and optimised order, against float64; and the JS API's
//! `LinearExpr` and `gpu.linear`, their errors included.
//!
//! Tolerance: each element of y must satisfy |gpu - exact| <= 2 (k + 2) 2^-24 s with
//! s = sum_j |a_ij x_j| + |b_i| and k = m + 1 terms (`reference::dot_error_bound`): the float32
//! rounding of the coefficients, of the products and of the sums, in whatever order the
//! program adds them.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, message};
use js_sys::{Float32Array, Float64Array, JSON};
use texla::backend::BackendKind;
use texla::gpu::Gpu;
use texla::reference::{compare, dot_error_bound, Rng};
use texla::simd_expr::examples::{
    poisson_2d_s, poisson_3d_s, random_sparse, runge_kutta_cars, PAPER_2D_PERMUTATION,
};
use texla::simd_expr::{stride_permutation, LinearExpr};
use texla::{Gpgpu, LinearExpression};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Vectors per run: x is m x COLS, one vector per column.
const COLS: usize = 3;

/// Runs `e` (a permuted form of `original`) on the GPU for random x (m x COLS, original order)
/// and checks every element of y against `original`'s float64 `A x + b` within the bound.
async fn check(gpu: &Gpu, name: &str, original: &LinearExpr, e: &LinearExpr, seed: u32) {
    let m = original.size();
    let x = Rng::new(seed).matrix(m * COLS, -1.0, 1.0);
    let gx = gpu.upload(&x, m, COLS).unwrap();
    let y = e.apply_gpu(gpu, &gx).unwrap();
    assert_eq!((y.rows(), y.cols()), (m, COLS), "{name}");
    let got = gpu.read(&y).await.unwrap();
    let (mut exact, mut bound) = (vec![0.0; m * COLS], vec![0.0; m * COLS]);
    for c in 0..COLS {
        let column: Vec<f64> = (0..m).map(|r| f64::from(x[r * COLS + c])).collect();
        for (r, v) in original.apply(&column).into_iter().enumerate() {
            exact[r * COLS + c] = v;
            let sum: f64 = (0..m)
                .map(|j| (original.entry(r, j) * column[j]).abs())
                .sum::<f64>()
                + original.b_entry(r).abs();
            bound[r * COLS + c] = dot_error_bound(m + 1, sum);
        }
    }
    let cmp = compare(&got, &exact, &bound);
    assert!(
        cmp.worst_bound_ratio <= 1.0,
        "{name}: element {} is {}, float64 says {} ({cmp:?})",
        cmp.worst_index,
        got[cmp.worst_index],
        exact[cmp.worst_index]
    );
}

/// `e` in natural order, then in the order `optimize` finds, which must be cheaper.
async fn natural_and_optimized(gpu: &Gpu, name: &str, e: &LinearExpr, moves: usize, seed: u32) {
    check(gpu, &format!("{name}, natural"), e, e, seed).await;
    let (cost, perm) = e.optimize(seed, moves);
    assert!(
        cost < e.cost(),
        "{name}: optimised {cost}, natural {}",
        e.cost()
    );
    let p = e.permute(&perm).unwrap();
    assert_eq!(p.cost(), cost);
    check(gpu, &format!("{name}, optimised"), e, &p, seed + 1).await;
}

fn f64s(v: &[f64]) -> JsValue {
    Float64Array::from(v).into()
}

fn json(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

on_both_backends! {
    async fn the_papers_examples_match_float64_natural_and_optimised(kind) {
        let gpu = device(kind).await;
        let gpu = gpu.as_ref();
        // Runge-Kutta, five cars (20 x 20, with b): 20 -> 14 instructions.
        natural_and_optimized(gpu, "RK 20", &runge_kutta_cars(5), 40_000, 1).await;
        // The 2D S block (8 x 8): 6 -> 4, and the paper's own permutation.
        let s2 = poisson_2d_s();
        natural_and_optimized(gpu, "2D S", &s2, 4_000, 3).await;
        let paper = s2.permute(&PAPER_2D_PERMUTATION).unwrap();
        assert_eq!(paper.cost(), 4);
        check(gpu, "2D S, the paper's order", &s2, &paper, 5).await;
        // The 3D S block (40 x 40): 38 -> 20.
        let s3 = poisson_3d_s();
        natural_and_optimized(gpu, "3D S", &s3, 8_000, 7).await;
        assert_eq!(s3.optimize(7, 8_000).0, 20);
    }

    async fn random_sparse_expressions_with_b_match_float64(kind) {
        let gpu = device(kind).await;
        let gpu = gpu.as_ref();
        for (k, (m, density)) in [(5, 0.5), (13, 0.2), (64, 0.08), (130, 0.03), (256, 0.01)]
            .into_iter()
            .enumerate()
        {
            let e = random_sparse(m, density, 11 + k as u32, true).unwrap();
            natural_and_optimized(gpu, &format!("random {m}"), &e, 4_000, 20 + k as u32).await;
        }
        // A random order, however bad, still gives y in the original order.
        let e = random_sparse(30, 0.2, 2, true).unwrap();
        let mut perm: Vec<usize> = (0..30).collect();
        let mut rng = Rng::new(4);
        for i in (1..30).rev() {
            perm.swap(i, (rng.next_f64() * (i + 1) as f64) as usize);
        }
        check(gpu, "random 30, shuffled", &e, &e.permute(&perm).unwrap(), 9).await;
    }

    async fn shapes_and_caps_are_clear_errors(kind) {
        let gpu = device(kind).await;
        let e = random_sparse(12, 0.3, 1, true).unwrap();
        let x = gpu.upload(&[1.0; 10], 10, 1).unwrap();
        let err = e.apply_gpu(&gpu, &x).unwrap_err().to_string();
        assert!(err.contains("size 12 needs x with 12 rows") && err.contains("10x1"), "{err}");
        let big = random_sparse(260, 0.01, 1, false).unwrap();
        let x = gpu.upload(&[1.0; 260], 260, 1).unwrap();
        let err = big.apply_gpu(&gpu, &x).unwrap_err().to_string();
        assert!(err.contains("size 1 to 256, this one is 260"), "{err}");
        // Kernels near the instruction cap compile and run, in natural and in a scattered order
        // (where each block row is evaluated in up to four cases).
        let near = random_sparse(256, 0.095, 3, true).unwrap();
        assert!((4000..=4096).contains(&near.cost()), "{}", near.cost());
        check(&gpu, "near the cap, natural", &near, &near, 1).await;
        let scattered = near.permute(&stride_permutation(256, 7)).unwrap();
        check(&gpu, "near the cap, stride 7", &near, &scattered, 2).await;
    }

    async fn the_js_api_runs_and_refuses_bad_input(kind) {
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let s = poisson_3d_s();
        let e = LinearExpression::from_dense(&f64s(s.matrix()), 40.0, &JsValue::UNDEFINED).unwrap();
        assert_eq!((e.size(), e.cost(), e.instructions().len()), (40, 38, 38));
        assert_eq!(e.cost_gauss_seidel(), s.cost_gauss_seidel());
        assert!(e.b().is_none() && e.matrix().length() == 1600);
        assert_eq!(e.constants().length() as usize % 4, 0);
        let found = e.optimize(json(r#"{"seed": 3, "moves": 8000}"#)).unwrap();
        let get = |key: &str| js_sys::Reflect::get(&found, &key.into()).unwrap();
        assert_eq!(get("cost").as_f64(), Some(20.0));
        assert!(get("curves").is_undefined(), "curves only with history: true");
        let traced = e.optimize(json(r#"{"seed": 3, "moves": 8000, "history": true}"#)).unwrap();
        let curves = js_sys::Array::from(&js_sys::Reflect::get(&traced, &"curves".into()).unwrap());
        assert_eq!(curves.length(), 8);
        let first = |key: &str| js_sys::Reflect::get(&curves.get(0), &key.into()).unwrap();
        assert_eq!(first("from").as_string().as_deref(), Some("identity"));
        assert_eq!(first("every").as_f64(), Some(100.0));
        let costs = js_sys::Uint32Array::from(first("costs")).to_vec();
        assert_eq!((costs.len(), costs[0]), (8000 / 8 / 100 + 1, 38));
        assert_eq!(LinearExpression::example("rk-cars").unwrap().cost(), 20);
        assert_eq!(LinearExpression::example("poisson-3d-s").unwrap().cost(), 38);
        let p = e.permute(&get("permutation")).unwrap();
        assert_eq!(p.cost(), 20);
        assert_eq!(e.permutation().to_vec(), (0..40).collect::<Vec<u32>>(), "e is unchanged");
        assert_eq!(p.permutation().to_vec(), js_sys::Uint32Array::from(get("permutation")).to_vec());
        assert_eq!(p.instructions().len(), 20);
        assert!(p.shader("wgsl").unwrap().contains("fn kernel(texel: vec2<i32>)"));
        assert!(p.shader("glsl").unwrap().contains("vec4 kernel(ivec2 texel)"));
        // gpu.linear: the natural and the optimised order agree with the Rust call.
        let x: Vec<f32> = Rng::new(2).matrix(80, -1.0, 1.0);
        let gx = gpu.upload(&Float32Array::from(x.as_slice()).into(), 40.0, 2.0, JsValue::UNDEFINED).unwrap();
        let read = |m: texla::GpuMatrix| async move {
            let v = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap();
            Float32Array::from(v).to_vec()
        };
        let natural = read(gpu.linear(&e, &gx).unwrap()).await;
        let optimised = read(gpu.linear(&p, &gx).unwrap()).await;
        for (r, (a, b)) in natural.iter().zip(&optimised).enumerate() {
            assert!((a - b).abs() <= 1e-6, "row {}: {a} against {b}", r / 2);
        }
        let column0: Vec<f64> = (0..40).map(|r| f64::from(x[2 * r])).collect();
        let want = s.apply(&column0);
        assert!((f64::from(natural[2 * 7]) - want[7]).abs() < 1e-6);
        // Bad input: one clear Error each, and the module goes on.
        let bad = |r: Result<LinearExpression, JsValue>| message(r.err().expect("an error"));
        let undef = &JsValue::UNDEFINED;
        let cases = [
            (bad(LinearExpression::from_dense(&f64s(&[1.0; 6]), 2.0, undef)), "must be square"),
            (bad(LinearExpression::from_dense(&f64s(&[1.0, f64::NAN, 0.0, 1.0]), 2.0, undef)), "A[0][1] is NaN"),
            (bad(LinearExpression::from_dense(&f64s(&[1.0; 4]), 2.0, &f64s(&[0.0, f64::INFINITY]))), "b[1] is inf"),
            (bad(LinearExpression::from_dense(&f64s(&[1.0; 4]), 2.0, &f64s(&[0.0]))), "b must hold m = 2"),
            (bad(LinearExpression::from_dense(&f64s(&[]), 0.0, undef)), "from 1 to 4096, got 0"),
            (bad(LinearExpression::from_dense(&f64s(&[]), 4097.0, undef)), "from 1 to 4096, got 4097"),
            (bad(LinearExpression::from_dense(&f64s(&[1.0]), 1.5, undef)), "m must be a whole number"),
            (bad(LinearExpression::from_dense(&"1,2,3,4".into(), 2.0, undef)), "A must be a Float64Array"),
            (bad(LinearExpression::from_dense(&json(r#"[1, "x", 0, 1]"#), 2.0, undef)), "A[0][1] is NaN"),
            (bad(e.permute(&json("[0, 1]"))), "needs 40 entries"),
            (bad(e.permute(&"0,1".into())), "array of indices"),
            (bad(p.permute(&json(&format!("[{}]", (0..40).map(|i| if i == 3 { 0 } else { i }).map(|i| i.to_string()).collect::<Vec<_>>().join(", "))))), "repeats an index"),
            (bad(e.permute(&json(&format!("[{}]", (1..=40).map(|i| i.to_string()).collect::<Vec<_>>().join(", "))))), "out of range"),
            (bad(e.permute(&json(&format!("[0.5, {}]", (1..40).map(|i| i.to_string()).collect::<Vec<_>>().join(", "))))), "permutation[0] must be a whole number from 0 to 39"),
            (bad(e.permute(&json(&format!("[-1, {}]", (1..40).map(|i| i.to_string()).collect::<Vec<_>>().join(", "))))), "permutation[0] must be a whole number"),
        ];
        for (got, want) in cases {
            assert!(got.contains(want), "{got:?} should say {want:?}");
        }
        let other = |r: Result<String, JsValue>| message(r.expect_err("an error"));
        assert!(other(e.shader("hlsl")).contains("\"wgsl\" or \"glsl\", got \"hlsl\""));
        let big = random_sparse(260, 0.01, 1, false).unwrap();
        let big = LinearExpression::from_dense(&f64s(big.matrix()), 260.0, undef).unwrap();
        assert!(other(big.shader("wgsl")).contains("size 1 to 256, this one is 260"));
        let opt = |text: &str| message(e.optimize(json(text)).expect_err("an error"));
        assert!(opt(r#"{"moves": -1}"#).contains("moves must be a whole number from 0 to 1000000"));
        assert!(opt(r#"{"moves": 2000000}"#).contains("from 0 to 1000000, got 2000000"));
        assert!(opt(r#"{"moves": 1.5}"#).contains("moves must be a whole number"));
        assert!(opt(r#"{"seed": 1.5}"#).contains("seed must be a whole number from 0 to 2^32 - 1"));
        assert!(opt(r#"{"seed": "x"}"#).contains("option seed must be a finite number"));
        assert!(opt(r#"{"history": 1}"#).contains("option history must be true or false"));
        let example = message(LinearExpression::example("nope").err().unwrap());
        assert!(example.contains("no example \"nope\""), "{example}");
        let x10 = gpu.upload(&Float32Array::from(&[1.0f32; 10][..]).into(), 10.0, 1.0, JsValue::UNDEFINED).unwrap();
        let err = message(gpu.linear(&e, &x10).err().unwrap());
        assert!(err.contains("needs x with 40 rows"), "{err}");
        // Still usable after every error.
        assert_eq!(read(gpu.linear(&e, &gx).unwrap()).await, natural);
    }
}
