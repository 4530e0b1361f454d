//! Shared by the browser test files: opening a backend (failing, never skipping, when it is
//! missing) and the macro that runs each test on both backends.
#![allow(dead_code)]

use texla::backend::BackendKind;
use texla::gpu::{Choice, Gpu};

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
