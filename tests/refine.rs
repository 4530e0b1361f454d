//! Browser tests of iterative refinement (`texla::solver::refine`, `Gpgpu.refine`), on both
//! backends: float-float residuals with float32 corrections reach a true relative residual of
//! 1e-10 (computed in float64 on the CPU from the read-back x) with CG corrections on 1D Poisson
//! n = 512 and with Jacobi corrections on Fujimoto's diagonally dominant system (n = 512,
//! alpha 1.2, seed 3). Each logs its iterations and time beside float-float CG all the way
//! (Poisson) and float32 Jacobi alone (Fujimoto's system), the table of README's "Float-float".
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, keep_going, true_residual};
use js_sys::{Float64Array, Object, Reflect};
use texla::backend::BackendKind;
use texla::gpu::{DdMatrix, Gpu};
use texla::problems::{jacobi_system, poisson_1d, Problem};
use texla::solver::{
    cg_float_float, jacobi, refine, CgOptions, InnerSolver, JacobiOptions, RefineOptions,
};
use texla::Gpgpu;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The problem's A and b in float64, and uploaded as float-float.
fn upload(gpu: &Gpu, p: &Problem) -> (Vec<f64>, Vec<f64>, DdMatrix, DdMatrix) {
    let a64: Vec<f64> = p.a.iter().map(|&v| f64::from(v)).collect();
    let b64: Vec<f64> = p.b.iter().map(|&v| f64::from(v)).collect();
    let a = gpu.float_float().upload(&a64, p.n, p.n).unwrap();
    let b = gpu.float_float().upload(&b64, p.n, 1).unwrap();
    (a64, b64, a, b)
}

/// A residual history, `1.0e0 3.1e-5 ...`.
fn history(residuals: &[f64]) -> String {
    residuals
        .iter()
        .map(|r| format!("{r:.1e}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn log(line: String) {
    web_sys::console::log_1(&line.into());
}

on_both_backends! {
    async fn cg_refinement_reaches_1e_10_on_poisson_512(kind) {
        let gpu = device(kind).await;
        let p = poisson_1d(512);
        let (a64, b64, a, b) = upload(&gpu, &p);
        let options = RefineOptions { solver: InnerSolver::Cg, ..RefineOptions::default() };
        let start = js_sys::Date::now();
        let s = refine(&gpu, &a, &b, options, &mut keep_going).await.unwrap();
        let x = gpu.float_float().read(&s.x).await.unwrap();
        let ms = js_sys::Date::now() - start;
        let refined = true_residual(&a64, &b64, &x);
        // Float-float CG all the way, to the same tolerance.
        let start = js_sys::Date::now();
        let cg_options = CgOptions { tol: 1e-10, max_iter: 1024, fused: false };
        let c = cg_float_float(&gpu, &a, &b, None, cg_options, &mut keep_going).await.unwrap();
        let xc = gpu.float_float().read(&c.x).await.unwrap();
        let cg_ms = js_sys::Date::now() - start;
        let all_ff = true_residual(&a64, &b64, &xc);
        log(format!(
            "{} | Poisson 1D n = 512 | refinement, CG inner (innerTol 1e-4) | {} outer, {} inner \
             ({:?}) | {ms:.0} ms | {refined:.1e} | {} passes, {} read-backs | residuals {}",
            kind.name(), s.outer, s.inner, s.inner_per_outer, s.counts.passes, s.counts.readbacks,
            history(&s.residuals)
        ));
        log(format!(
            "{} | Poisson 1D n = 512 | float-float CG | {} iterations | {cg_ms:.0} ms | \
             {all_ff:.1e} | {} passes, {} read-backs",
            kind.name(), c.iterations, c.counts.passes, c.counts.readbacks
        ));
        assert!(s.converged, "refinement stopped at {:?}", s.residuals);
        assert!(refined <= 1e-10, "true relative residual {refined:e} ({:?})", s.residuals);
        assert_eq!(s.residuals.len(), s.outer + 1);
        assert_eq!(s.inner, s.inner_per_outer.iter().sum::<usize>());
    }

    async fn jacobi_refinement_reaches_1e_10_on_seed_003s_system(kind) {
        let gpu = device(kind).await;
        let p = jacobi_system(512, 1.2, 3);
        let (a64, b64, a, b) = upload(&gpu, &p);
        let options = RefineOptions { solver: InnerSolver::Jacobi, ..RefineOptions::default() };
        let start = js_sys::Date::now();
        let s = refine(&gpu, &a, &b, options, &mut keep_going).await.unwrap();
        let x = gpu.float_float().read(&s.x).await.unwrap();
        let ms = js_sys::Date::now() - start;
        let refined = true_residual(&a64, &b64, &x);
        // Float32 Jacobi alone, as far as it goes in as many iterations.
        let (a32, b32) = common::upload(&gpu, &p);
        let start = js_sys::Date::now();
        let o = JacobiOptions { tol: 1e-10, max_iter: s.inner.max(1), check_every: 1 };
        let j = jacobi(&gpu, &a32, &b32, o, &mut keep_going).await.unwrap();
        let xj: Vec<f64> = gpu.read(&j.x).await.unwrap().iter().map(|&v| f64::from(v)).collect();
        let j_ms = js_sys::Date::now() - start;
        let alone = true_residual(&a64, &b64, &xj);
        log(format!(
            "{} | Fujimoto's paper Jacobi system n = 512 | refinement, Jacobi inner (innerTol 1e-4) | \
             {} outer, {} inner ({:?}) | {ms:.0} ms | {refined:.1e} | {} passes, {} read-backs | \
             residuals {}",
            kind.name(), s.outer, s.inner, s.inner_per_outer, s.counts.passes, s.counts.readbacks,
            history(&s.residuals)
        ));
        log(format!(
            "{} | Fujimoto's paper Jacobi system n = 512 | float32 Jacobi alone | {} iterations | \
             {j_ms:.0} ms | {alone:.1e} | {} passes, {} read-backs",
            kind.name(), j.iterations, j.counts.passes, j.counts.readbacks
        ));
        assert!(s.converged, "refinement stopped at {:?}", s.residuals);
        assert!(refined <= 1e-10, "true relative residual {refined:e} ({:?})", s.residuals);
    }

    async fn refine_through_the_js_api(kind) {
        let gpu = match Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await {
            Ok(gpu) => gpu,
            Err(e) => panic!("{} is missing: {:?}", kind.name(), e),
        };
        let settle = |p: js_sys::Promise| async move {
            wasm_bindgen_futures::JsFuture::from(p)
                .await
                .map_err(|e| String::from(js_sys::Error::from(e).message()))
        };
        let p = jacobi_system(64, 1.5, 5);
        let a64: Vec<f64> = p.a.iter().map(|&v| f64::from(v)).collect();
        let b64: Vec<f64> = p.b.iter().map(|&v| f64::from(v)).collect();
        let a = gpu.upload_float64(&Float64Array::from(a64.as_slice()).into(), 64.0, 64.0).unwrap();
        let b = gpu.upload_float64(&Float64Array::from(b64.as_slice()).into(), 64.0, 1.0).unwrap();
        let options = Object::new();
        let set = |k: &str, v: JsValue| Reflect::set(&options, &k.into(), &v).unwrap();
        set("solver", "jacobi".into());
        set("tol", 1e-11.into());
        let r = settle(gpu.refine(&a, &b, options.clone().into())).await.unwrap();
        let get = |k: &str| Reflect::get(&r, &k.into()).unwrap();
        assert_eq!(get("converged").as_bool(), Some(true));
        let outer = get("outer").as_f64().unwrap();
        assert!(outer >= 2.0 && get("iterations").as_f64() == Some(outer), "{outer}");
        assert!(get("inner").as_f64().unwrap() > outer);
        assert_eq!(Float64Array::from(get("residuals")).length() as f64, outer + 1.0);
        let x = get("x");
        assert_eq!(Reflect::get(&x, &"floatFloat".into()).unwrap(), JsValue::TRUE);
        let read: js_sys::Function = Reflect::get(&x, &"readFloat64".into()).unwrap().into();
        let xv = Float64Array::from(settle(read.call0(&x).unwrap().into()).await.unwrap()).to_vec();
        let res = true_residual(&a64, &b64, &xv);
        assert!(res <= 1e-11, "true relative residual {res:e}");
        // Bad input: float32 operands, an unknown solver, a bad tolerance.
        let a32 = gpu.upload(&js_sys::Float32Array::from(p.a.as_slice()).into(), 64.0, 64.0, JsValue::UNDEFINED).unwrap();
        let err = settle(gpu.refine(&a32, &b, JsValue::UNDEFINED)).await.unwrap_err();
        assert!(err.contains("float-float") && err.contains("uploadFloat64"), "{err}");
        set("solver", "gauss".into());
        let err = settle(gpu.refine(&a, &b, options.clone().into())).await.unwrap_err();
        assert!(err.contains("\"gauss\"") && err.contains("jacobi"), "{err}");
        set("solver", "cg".into());
        set("innerTol", (-1.0).into());
        let err = settle(gpu.refine(&a, &b, options.clone().into())).await.unwrap_err();
        assert!(err.contains("innerTol"), "{err}");
        let err = settle(gpu.refine(&a, &a, JsValue::UNDEFINED)).await.unwrap_err();
        assert!(err.contains("64x1"), "{err}");
    }
}
