//! Browser tests of kernels of one's own (`Gpu::run_own`, JS `runKernel`), on BOTH backends: a
//! body runs in texla's prelude; one that does not compile is an `Error::Compile` naming the line
//! of the body, and the same GPU goes on computing; a compute body runs on WebGPU and is refused
//! on WebGL2. Run with `cargo test --target wasm32-unknown-unknown --test own_kernel`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use texla::backend::BackendKind;
use texla::error::Error;
use texla::kernels::custom;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// 2 a + param(0), in both languages.
const WGSL: &str = "fn kernel(texel: vec2<i32>) -> vec4<f32> {\n    let v = a_texel(texel.x, texel.y);\n    return 2.0 * v + param(0);\n}\n";
const GLSL: &str = "vec4 kernel(ivec2 texel) {\n    vec4 v = a_texel(texel.x, texel.y);\n    return 2.0 * v + param(0);\n}\n";

on_both_backends! {
    async fn own_kernel_runs_in_the_prelude(kind) {
        let gpu = device(kind).await;
        let data: Vec<f32> = (0..35).map(|i| i as f32 - 17.0).collect();
        let a = gpu.upload(&data, 7, 5).unwrap();
        let kernel = custom(WGSL, GLSL, 1, None).unwrap();
        let c = gpu.run_own(kernel, &[&a], (7, 5), &[0.5]).await.unwrap();
        let got = gpu.read(&c).await.unwrap();
        let want: Vec<f32> = data.iter().map(|v| 2.0 * v + 0.5).collect();
        assert_eq!(got, want);
    }

    async fn a_compile_error_names_the_body_line_and_the_gpu_goes_on(kind) {
        let gpu = device(kind).await;
        let a = gpu.upload(&[1.0, 2.0, 3.0, 4.0], 2, 2).unwrap();
        // Line 3 of each body names a variable that does not exist.
        let (wgsl, glsl) = (WGSL.replace("* v +", "* w +"), GLSL.replace("* v +", "* w +"));
        let kernel = custom(&wgsl, &glsl, 1, None).unwrap();
        let e = gpu.run_own(kernel, &[&a], (2, 2), &[]).await.unwrap_err();
        let Error::Compile { messages, language, .. } = &e else {
            panic!("not a compile error: {e:?}");
        };
        let expected = if kind == BackendKind::WebGpu { "WGSL" } else { "GLSL ES 3.00" };
        assert_eq!(*language, expected);
        assert!(messages.iter().any(|m| m.line == Some(3)), "{e}");
        assert!(e.to_string().contains("line 3"), "{e}");
        // The same GPU computes on, its errors not poisoned by the bad kernel.
        let b = gpu.mul(&a, &a).unwrap();
        gpu.finish().await.unwrap();
        assert_eq!(gpu.read(&b).await.unwrap(), vec![7.0, 10.0, 15.0, 22.0]);
        let fixed = custom(WGSL, GLSL, 1, None).unwrap();
        let c = gpu.run_own(fixed, &[&a], (2, 2), &[1.0]).await.unwrap();
        assert_eq!(gpu.read(&c).await.unwrap(), vec![3.0, 5.0, 7.0, 9.0]);
        // A body that defines no kernel: the entry point after it says so.
        let none = custom("fn kernal() {}\n", "void kernal() {}\n", 1, None).unwrap();
        let e = gpu.run_own(none, &[&a], (2, 2), &[]).await.unwrap_err();
        assert!(e.to_string().contains("texla's entry point after the body"), "{e}");
        gpu.finish().await.unwrap();
    }

    async fn a_compute_body_runs_on_webgpu_only(kind) {
        let gpu = device(kind).await;
        let a = gpu.upload(&(0..12).map(|i| i as f32).collect::<Vec<_>>(), 3, 4).unwrap();
        let body = "@compute @workgroup_size(8, 8)\nfn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {\n    let t = vec2<i32>(id.xy);\n    if (t.x < out_cols() && t.y < a_height()) { textureStore(out_tex, t, a_texel(t.x, t.y) + 1.0); }\n}\n";
        let kernel = custom(body, "", 1, Some((8, 8))).unwrap();
        let result = gpu.run_own(kernel, &[&a], (3, 4), &[]).await;
        match kind {
            BackendKind::WebGpu => {
                let got = gpu.read(&result.unwrap()).await.unwrap();
                assert_eq!(got, (1..=12).map(|i| i as f32).collect::<Vec<_>>());
                // No entry point: the pipeline's error, caught, and the device goes on.
                let bad = custom(&body.replace("cs_main", "cs_mian"), "", 1, Some((8, 8))).unwrap();
                let e = gpu.run_own(bad, &[&a], (3, 4), &[]).await.unwrap_err();
                assert!(matches!(e, Error::Compile { .. }), "{e:?}");
                gpu.finish().await.unwrap();
            }
            BackendKind::WebGl2 => {
                let e = result.unwrap_err();
                assert!(e.to_string().contains("needs WebGPU"), "{e}");
            }
        }
    }

    async fn a_body_in_the_other_language_only_is_refused(kind) {
        let gpu = device(kind).await;
        let a = gpu.upload(&[1.0], 1, 1).unwrap();
        let (wgsl, glsl) = match kind {
            BackendKind::WebGpu => ("", GLSL),
            BackendKind::WebGl2 => (WGSL, ""),
        };
        let e = gpu.run_own(custom(wgsl, glsl, 1, None).unwrap(), &[&a], (1, 1), &[]).await.unwrap_err();
        let named = if kind == BackendKind::WebGpu { "(wgsl)" } else { "(glsl)" };
        assert!(e.to_string().contains(named), "{e}");
        let e = gpu.run_own(custom(WGSL, GLSL, 2, None).unwrap(), &[&a], (1, 1), &[]).await.unwrap_err();
        assert!(e.to_string().contains("reads 2 inputs, got 1"), "{e}");
    }
}
