//! Browser tests of the SIMD-optimization paper's stencil solvers on the GPU, on BOTH backends: the enhanced block
//! Jacobi Poisson solver (one generated pass per slab) and the wave (eight generated kernels a
//! step), each against its float64 model run the same number of iterations or steps, in
//! natural and optimised order; `solve` to a tolerance; the JS API's errors.
//!
//! Tolerances: a pass computes each value from at most k = 7 terms (six neighbours and b),
//! each float32 rounding at most 2^-24 relative, so one EBJ iteration adds at most
//! (k + 2) 2^-24 S to an element (S: the largest sum of |terms|, bounded by
//! max |x| + max |b| / d over the run), and the Jacobi matrix (row sums of |coefficients| <= 1)
//! does not amplify what came before: after n iterations |gpu - f64| <= n (k + 2) 2^-24 S,
//! doubled for the rounding of the uploaded b. The wave's three-level scheme can carry an
//! error forward linearly, so after n steps the bound is n (n + 1) / 2 (k + 2) 2^-24 S, with
//! S = 2 max |w| over the run.
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use js_sys::{Float64Array, Reflect};
use texla::backend::BackendKind;
use texla::gpu::Gpu;
use texla::simd_expr::examples::PAPER_2D_PERMUTATION;
use texla::stencil::{Ebj, PoissonGrid, Wave};
use texla::Gpgpu;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const EPS: f64 = 1.0 / 16_777_216.0;

/// `sweeps` EBJ iterations of `e` from zero on the GPU against the float64 model.
async fn ebj_matches_float64(gpu: &Gpu, e: &Ebj, sweeps: usize) {
    let b = e.grid.rhs(7);
    let state = e.upload(gpu, &b, None).unwrap();
    let passes = e.passes().unwrap();
    let mut st = state;
    let mut x = vec![0.0; e.grid.len()];
    let d = e.grid.diagonal();
    let bmax = b.iter().fold(0.0f64, |m, v| m.max(v.abs())) / d;
    let mut s = bmax;
    for _ in 0..sweeps {
        e.sweep_gpu(gpu, &passes, &mut st).unwrap();
        e.sweep(&mut x, &b);
        s = s.max(x.iter().fold(0.0f64, |m, v| m.max(v.abs())) + bmax);
    }
    let got = e.read(gpu, &st).await.unwrap();
    let bound = 2.0 * sweeps as f64 * 9.0 * EPS * s;
    let (worst, at) = (got.iter().zip(&x).map(|(g, f)| (g - f).abs()))
        .enumerate()
        .fold(
            (0.0f64, 0),
            |(w, a), (k, v)| if v > w { (v, k) } else { (w, a) },
        );
    assert!(
        worst <= bound,
        "{:?} {}: cell {at} is {}, float64 says {} (bound {bound})",
        e.grid.dims(),
        e.name,
        got[at],
        x[at]
    );
    assert!(x.iter().any(|v| v.abs() > 1e-3), "the test moved nothing");
}

/// `steps` wave steps from a stone on the GPU against float64.
async fn wave_matches_float64(gpu: &Gpu, w: &Wave, steps: usize) {
    let (side, lines) = w.dims();
    // Off-centre, so that the stone crosses the block ends (the corner couplings).
    let stone = w.stone(side as f64 / 2.0 - 0.5, lines as f64 / 3.0, 1.0, 3.0);
    let mut st = w.upload(gpu, &stone, &stone).unwrap();
    let passes = w.passes().unwrap();
    let (mut prev, mut cur) = (stone.clone(), stone);
    let mut s = 1.0f64;
    for _ in 0..steps {
        w.step_gpu(gpu, &passes, &mut st).unwrap();
        w.step(&mut prev, &mut cur);
        s = s.max(2.0 * cur.iter().fold(0.0f64, |m, v| m.max(v.abs())));
    }
    let got = w.read(gpu, &st.current).await.unwrap();
    let n = steps as f64;
    let bound = n * (n + 1.0) / 2.0 * 8.0 * EPS * s;
    let worst = (got.iter().zip(&cur))
        .map(|(g, f)| (f64::from(*g) - f).abs())
        .fold(0.0f64, f64::max);
    assert!(worst <= bound, "{}: worst {worst}, bound {bound}", w.name);
    // The waves reached the block ends: the corners coupled something.
    assert!(cur[31 + side * (lines / 3)].abs() > 1e-4);
}

async fn rejects(p: js_sys::Promise) -> String {
    let e = JsFuture::from(p).await.expect_err("a rejection");
    e.dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

use wasm_bindgen::JsCast;

fn throws<T>(r: Result<T, JsValue>) -> String {
    match r {
        Ok(_) => panic!("expected an Error"),
        Err(e) => e
            .dyn_into::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_default(),
    }
}

fn options(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    o.into()
}

on_both_backends! {
    async fn ebj_passes_match_float64_2d_and_3d(kind) {
        let gpu = device(kind).await;
        let g2 = PoissonGrid::new(8, 8, 1).unwrap();
        ebj_matches_float64(&gpu, &Ebj::natural(g2), 6).await;
        ebj_matches_float64(&gpu, &Ebj::with_order(g2, &PAPER_2D_PERMUTATION).unwrap(), 6).await;
        // The paper's 40-cell line (ten slabs) on a small cross-section: the 40 x 80 x 80
        // solver's code path.
        let g3 = PoissonGrid::new(40, 6, 5).unwrap();
        ebj_matches_float64(&gpu, &Ebj::natural(g3), 4).await;
        ebj_matches_float64(&gpu, &Ebj::optimized(g3), 4).await;
    }

    async fn wave_steps_match_float64(kind) {
        let gpu = device(kind).await;
        for o in ["natural", "optimized"] {
            let w = Wave::new(64, 24, 0.25, o).unwrap();
            wave_matches_float64(&gpu, &w, 24).await;
        }
    }

    async fn the_js_api_solves_to_tolerance_and_refuses_bad_input(kind) {
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let perm = js_sys::Array::new();
        for p in PAPER_2D_PERMUTATION {
            perm.push(&(p as u32).into());
        }
        let opts = options(&[("nx", 8.into()), ("ny", 8.into()), ("nz", 1.into()), ("ordering", perm.into())]);
        let solver = gpu.poisson(opts).unwrap();
        let b = solver.rhs(3);
        solver.set_rhs(&b.clone().into(), &JsValue::UNDEFINED).unwrap();
        let out = JsFuture::from(solver.solve(options(&[("tol", 1e-5.into())]))).await.unwrap();
        let get = |k: &str| Reflect::get(&out, &k.into()).unwrap();
        assert_eq!(get("converged"), JsValue::TRUE);
        let iterations = get("iterations").as_f64().unwrap();
        let tols = js_sys::Array::of1(&1e-5.into());
        let f64_iterations = solver.iterations_float64(&b.into(), &tols.into(), 10_000.0).unwrap();
        let f64_iterations = f64_iterations.get(0).as_f64().unwrap();
        assert!((iterations - f64_iterations).abs() <= 2.0, "{iterations} vs {f64_iterations}");
        let x = JsFuture::from(solver.solution()).await.unwrap();
        assert_eq!(Float64Array::from(x).length(), 64);

        // Errors: every one a clear message.
        let msg = throws(gpu.poisson(options(&[("nx", 10.into())])));
        assert!(msg.contains("multiple of 4"), "{msg}");
        let msg = throws(gpu.poisson(options(&[("nx", 8.into()), ("ordering", "fast".into())])));
        assert!(msg.contains("ordering"), "{msg}");
        let bad = js_sys::Array::of3(&0.into(), &1.into(), &1.into());
        let msg = throws(gpu.poisson(options(&[("nx", 8.into()), ("ordering", bad.into())])));
        assert!(msg.contains("permutation"), "{msg}");
        let fresh = gpu.poisson(options(&[("nx", 8.into()), ("ny", 8.into()), ("nz", 1.into())])).unwrap();
        assert!(rejects(fresh.iterate(3.0)).await.contains("setRhs"));
        let short = Float64Array::new_with_length(10);
        assert!(throws(fresh.set_rhs(&short.into(), &JsValue::UNDEFINED)).contains("one value per cell"));
        let nan = Float64Array::new_with_length(64);
        nan.set_index(5, f64::NAN);
        assert!(throws(fresh.set_rhs(&nan.into(), &JsValue::UNDEFINED)).contains("b[5]"));
        // A grid whose lines are more texel rows than a texture may have.
        let tall = gpu.poisson(options(&[("nx", 4.into()), ("ny", 1_000_000.into()), ("nz", 1.into())])).unwrap();
        let b = Float64Array::new_with_length(4_000_000);
        let msg = throws(tall.set_rhs(&b.into(), &JsValue::UNDEFINED));
        assert!(msg.contains("too large") || msg.contains("larger"), "{msg}");
        let msg = throws(gpu.poisson(options(&[("nx", 256.into()), ("ny", 4096.into()), ("nz", 4096.into())])));
        assert!(msg.contains("unknowns"), "{msg}");

        // The wave: a stone, steps, heights; its errors.
        let wave = gpu.wave(options(&[("side", 64.into()), ("lines", 16.into()), ("ordering", "optimized".into())])).unwrap();
        JsFuture::from(wave.drop_stone(20.0, 8.0, Some(1.0), Some(3.0))).await.unwrap();
        wave.step(Some(5.0)).unwrap();
        let h = js_sys::Float32Array::from(JsFuture::from(wave.heights()).await.unwrap());
        assert_eq!(h.length(), 64 * 16);
        assert!(h.to_vec().iter().all(|v| v.is_finite()) && h.get_index(20 + 64 * 8) != 0.0);
        assert!(rejects(wave.drop_stone(64.0, 3.0, None, None)).await.contains("inside"));
        assert!(throws(gpu.wave(options(&[("side", 500.into())]))).contains("multiple of 32"));
        assert!(throws(gpu.wave(options(&[("lambda2", 0.9.into())]))).contains("stable"));
        assert!(throws(gpu.wave(options(&[("ordering", "fast".into())]))).contains("ordering"));
    }
}
