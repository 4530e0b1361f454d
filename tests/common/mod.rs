//! Shared by the browser test files: opening a backend (failing, never skipping, when it is
//! missing), the macro that runs each test on both backends, and the helpers the solver tests
//! share.
#![allow(dead_code)]

pub mod wall;

use texla::backend::BackendKind;
use texla::gpu::{Choice, Gpu};
use texla::matrix::Matrix;
use texla::problems::Problem;
use texla::solver::Progress;
use wasm_bindgen::JsValue;

pub async fn device(kind: BackendKind) -> Box<Gpu> {
    match Gpu::open(Choice::Force(kind)).await {
        Ok(opened) => {
            assert_eq!(opened.gpu.capabilities().backend, kind);
            Box::new(opened.gpu)
        }
        Err(e) => panic!(
            "{} is required for this test and is missing: {e}",
            kind.name()
        ),
    }
}

/// A JS error's message.
pub fn message(e: JsValue) -> String {
    js_sys::Error::from(e).message().into()
}

/// What a promise of the JS API resolves to, or its error's message.
pub async fn settle(p: js_sys::Promise) -> Result<JsValue, String> {
    wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map_err(message)
}

/// Writes each test once; it runs in module `webgpu` and in module `webgl2`.
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($kind:ident) $body:block)*) => {
        mod webgpu {
            use super::*;
            $( #[wasm_bindgen_test] async fn $name() { let $kind = BackendKind::WebGpu; $body } )*
        }
        mod webgl2 {
            use super::*;
            $( #[wasm_bindgen_test] async fn $name() { let $kind = BackendKind::WebGl2; $body } )*
        }
    };
}

/// A test problem's A and b on `gpu`.
pub fn upload(gpu: &Gpu, p: &Problem) -> (Matrix, Matrix) {
    (
        gpu.upload(&p.a, p.n, p.n).unwrap(),
        gpu.upload(&p.b, p.n, 1).unwrap(),
    )
}

/// A solver observer that never cancels.
pub fn keep_going(_: Progress) -> bool {
    true
}

/// max |x - x*| / max |x*| against the problem's known answer (infinite where x holds NaN).
pub async fn error(gpu: &Gpu, x: &Matrix, p: &Problem) -> f64 {
    error_to(gpu, x, &p.x).await
}

/// max |x - reference| / max |reference| (infinite where x holds NaN).
pub async fn error_to(gpu: &Gpu, x: &Matrix, reference: &[f64]) -> f64 {
    let got = gpu.read(x).await.unwrap();
    let scale = reference.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    got.iter()
        .zip(reference)
        .map(|(g, e)| (f64::from(*g) - e).abs())
        .fold(
            0.0,
            |m, e| if e.is_nan() { f64::INFINITY } else { m.max(e) },
        )
        / scale
}

/// |b - A x| / |b| in float64 for a dense row-major A.
pub fn true_residual(a: &[f64], b: &[f64], x: &[f64]) -> f64 {
    let n = b.len();
    let (mut r2, mut b2) = (0.0, 0.0);
    for i in 0..n {
        let ax: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum();
        r2 += (b[i] - ax) * (b[i] - ax);
        b2 += b[i] * b[i];
    }
    (r2 / b2).sqrt()
}
