//! The product on the CPU (`ProductKernel::Cpu`, kernel "cpu"), on BOTH backends: what `matmul`
//! and `square` take by default on a software adapter (here SwiftShader on both), for operands
//! whose values are held on the CPU (float32 uploads with `keepCopies`, and its own results).
//! Others go to the GPU's kernel.
//!
//! Tolerance: every element within the blocked bound `(128 + ceil(k / 128) + 1) u Σ|a b|`
//! (`cpu::error_bound`) of the float64 product; the GPU's kernels within
//! `reference::dot_error_bound`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::message;
use js_sys::{Float32Array, Object, Reflect};
use texla::backend::BackendKind;
use texla::gpu::products::cpu::error_bound;
use texla::reference::{compare, dot_error_bound, matmul, transpose, Rng};
use texla::{Gpgpu, GpuMatrix};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `{ key: value, ... }`.
fn options(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (key, value) in pairs {
        Reflect::set(&o, &(*key).into(), value).unwrap();
    }
    o.into()
}

async fn values(m: &GpuMatrix) -> Vec<f32> {
    Float32Array::from(JsFuture::from(m.read()).await.unwrap()).to_vec()
}

fn upload(gpu: &Gpgpu, data: &[f32], rows: usize, cols: usize) -> GpuMatrix {
    let array: JsValue = Float32Array::from(data).into();
    gpu.upload(&array, rows as f64, cols as f64, JsValue::UNDEFINED)
        .unwrap()
}

/// `got` against the float64 `a b` (row-major, `m x k` and `k x n`) within `bound(k, Σ|a b|)`.
fn within(
    what: &str,
    got: &[f32],
    a: &[f32],
    b: &[f32],
    (m, k, n): (usize, usize, usize),
    bound: fn(usize, f64) -> f64,
) {
    let (exact, sums) = matmul(a, b, m, k, n);
    let bounds: Vec<f64> = sums.iter().map(|&s| bound(k, s)).collect();
    let cmp = compare(got, &exact, &bounds);
    assert!(cmp.worst_bound_ratio <= 1.0, "{what} {m}x{k}x{n}: {cmp:?}");
}

fn live_bytes(gpu: &Gpgpu) -> u64 {
    gpu.gpu().memory().live_bytes as u64
}

on_both_backends! {
    async fn a_software_adapter_multiplies_held_values_on_the_cpu(kind) {
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let software = gpu.gpu().capabilities().software;
        let caps = gpu.capabilities();
        let kernel = Reflect::get(&caps, &"matmulKernel".into()).unwrap().as_string().unwrap();
        assert_eq!(kernel == "cpu", software, "{kernel}");
        let mut rng = Rng::new(11);
        let cpu = options(&[("kernel", "cpu".into())]);
        for (m, k, n) in [(1, 1, 1), (37, 70, 45), (130, 257, 67)] {
            let (a, b) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, 0.0, 1.0));
            let (ga, gb) = (upload(&gpu, &a, m, k), upload(&gpu, &b, k, n));
            let before = live_bytes(&gpu);
            let c = gpu.matmul(&ga, &gb, JsValue::UNDEFINED).unwrap();
            if software {
                assert_eq!(live_bytes(&gpu), before, "a product on the CPU makes no texture");
            }
            let got = values(&c).await;
            within("auto", &got, &a, &b, (m, k, n), error_bound);
            // "cpu" by name gives the same bits (uploads hold their values only on a software adapter).
            if software {
                assert_eq!(values(&gpu.matmul(&ga, &gb, cpu.clone()).unwrap()).await, got);
            }
            // The GPU's own kernel, for comparison.
            let fast = gpu.matmul(&ga, &gb, options(&[("kernel", "fast".into())])).unwrap();
            within("fast", &values(&fast).await, &a, &b, (m, k, n), dot_error_bound);
            // Every transpose, the operands stored transposed.
            let (at, bt) = (transpose(&a, m, k), transpose(&b, k, n));
            let (gat, gbt) = (upload(&gpu, &at, k, m), upload(&gpu, &bt, n, k));
            for (ta, tb, x, y) in [(true, false, &gat, &gb), (false, true, &ga, &gbt), (true, true, &gat, &gbt)] {
                let o = options(&[("transposeA", ta.into()), ("transposeB", tb.into())]);
                let c = gpu.matmul(x, y, o).unwrap();
                within(&format!("transposes {ta} {tb}"), &values(&c).await, &a, &b, (m, k, n), error_bound);
            }
        }
        if !software {
            return;
        }
        // A result of the CPU is a matrix like any other: multiplied again on the CPU, squared,
        // added on the GPU (its texture made then), and it comes back after a lost GPU.
        let n = 40;
        let (a, b) = (rng.matrix(n * n, -1.0, 1.0), rng.matrix(n * n, -1.0, 1.0));
        let (ga, gb) = (upload(&gpu, &a, n, n), upload(&gpu, &b, n, n));
        let ab = values(&gpu.matmul(&ga, &gb, JsValue::UNDEFINED).unwrap()).await;
        let c = gpu.matmul(&ga, &gb, JsValue::UNDEFINED).unwrap();
        let before = live_bytes(&gpu);
        let cc = gpu.square(&c, JsValue::UNDEFINED).unwrap();
        let cb = gpu.matmul(&c, &gb, cpu.clone()).unwrap();
        assert_eq!(live_bytes(&gpu), before);
        within("square", &values(&cc).await, &ab, &ab, (n, n, n), error_bound);
        within("chained", &values(&cb).await, &ab, &b, (n, n, n), error_bound);
        let twice = gpu.add(&c, &c).unwrap();
        assert!(live_bytes(&gpu) > before, "the sum made the texture");
        let want: Vec<f32> = ab.iter().map(|x| x + x).collect();
        assert_eq!(values(&twice).await, want);
        gpu.lose_context();
        JsFuture::from(gpu.restore()).await.unwrap();
        assert_eq!(values(&c).await, ab, "after a lost GPU");
        // The page changes its array after the upload: the held copy is the upload's.
        let data = Float32Array::from(&a[..]);
        let held = gpu.upload(&data.clone().into(), n as f64, n as f64, JsValue::UNDEFINED).unwrap();
        data.fill(7.0, 0, data.length());
        assert_eq!(values(&gpu.matmul(&held, &gb, JsValue::UNDEFINED).unwrap()).await, ab);
        // set changes the held copy, and the next product sees it.
        JsFuture::from(held.set(0.0, 0.0, 0.0)).await.unwrap();
        let mut a0 = a.clone();
        a0[0] = 0.0;
        within("after set", &values(&gpu.matmul(&held, &gb, JsValue::UNDEFINED).unwrap()).await, &a0, &b, (n, n, n), error_bound);
    }

    async fn operands_only_on_the_gpu_go_to_its_kernels(kind) {
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let n = 24;
        let mut rng = Rng::new(12);
        let (a, b) = (rng.matrix(n * n, -1.0, 1.0), rng.matrix(n * n, -1.0, 1.0));
        let (ga, gb) = (upload(&gpu, &a, n, n), upload(&gpu, &b, n, n));
        let cpu = options(&[("kernel", "cpu".into())]);
        // A sum made on the GPU: "auto" multiplies it there, "cpu" says why it cannot.
        let sum = gpu.add(&ga, &ga).unwrap();
        let a2: Vec<f32> = a.iter().map(|x| x + x).collect();
        let c = gpu.matmul(&sum, &gb, JsValue::UNDEFINED).unwrap();
        within("a GPU operand", &values(&c).await, &a2, &b, (n, n, n), dot_error_bound);
        let err = message(gpu.matmul(&sum, &gb, cpu.clone()).err().unwrap());
        assert!(err.contains("kernel \"cpu\" multiplies values held on the CPU"), "{err}");
        // A float16 upload: its texture holds other values than the page's array.
        let half = gpu.upload(&Float32Array::from(&a[..]).into(), n as f64, n as f64, options(&[("dtype", "float16".into())])).unwrap();
        let a16 = texla::gpu::float16(&a).unwrap();
        within("float16", &values(&gpu.matmul(&half, &gb, JsValue::UNDEFINED).unwrap()).await, &a16, &b, (n, n, n), dot_error_bound);
        assert!(message(gpu.square(&half, cpu.clone()).err().unwrap()).contains("float16"));
        // The same errors as every kernel's: shapes, a freed operand, a float-float one.
        let wide = upload(&gpu, &b[..n * 3], 3, n);
        for kernel in ["auto", "cpu", "fast"] {
            let o = options(&[("kernel", kernel.into())]);
            let err = message(gpu.matmul(&ga, &wide, o.clone()).err().unwrap());
            assert!(err.contains("cannot multiply a 24x24 matrix by a 3x24 matrix"), "{kernel}: {err}");
            let err = message(gpu.square(&wide, o).err().unwrap());
            assert!(err.contains("not square"), "{kernel}: {err}");
        }
        let t = options(&[("transposeA", true.into())]);
        assert!(message(gpu.matmul(&wide, &ga, t).err().unwrap()).contains("A^T B of a 3x24 matrix A"));
        let gone = upload(&gpu, &a, n, n);
        gone.release();
        assert!(message(gpu.matmul(&gone, &gb, JsValue::UNDEFINED).err().unwrap()).contains("freed"));
        let dd = gpu.upload_float64(&js_sys::Float64Array::new_with_length((n * n) as u32).into(), n as f64, n as f64).unwrap();
        assert!(message(gpu.matmul(&dd, &gb, JsValue::UNDEFINED).err().unwrap()).contains("do not mix"));
        // An upload held on the CPU checks what every upload checks.
        let short: JsValue = Float32Array::from(&a[..5]).into();
        let err = message(gpu.upload(&short, 2.0, 3.0, JsValue::UNDEFINED).err().unwrap());
        assert!(err.contains("data has 5 values but a 2x3 matrix needs 6"), "{err}");
        // keepCopies: false holds no values: every product runs on the GPU.
        let bare = Gpgpu::create(Some(kind.name().into()), options(&[("keepCopies", false.into())])).await.unwrap();
        let (ba, bb) = (upload(&bare, &a, n, n), upload(&bare, &b, n, n));
        within("keepCopies false", &values(&bare.matmul(&ba, &bb, JsValue::UNDEFINED).unwrap()).await, &a, &b, (n, n, n), dot_error_bound);
        assert!(message(bare.matmul(&ba, &bb, cpu).err().unwrap()).contains("only on the GPU"));
        // The option cpuProducts: off, the GPU's kernel is the default; on, the CPU's anywhere.
        for on in [false, true] {
            let g = Gpgpu::create(Some(kind.name().into()), options(&[("cpuProducts", on.into())])).await.unwrap();
            let kernel = Reflect::get(&g.capabilities(), &"matmulKernel".into()).unwrap().as_string().unwrap();
            assert_eq!(kernel == "cpu", on, "{kernel}");
            let (ga, gb) = (upload(&g, &a, n, n), upload(&g, &b, n, n));
            let (c, bound) = (g.matmul(&ga, &gb, JsValue::UNDEFINED).unwrap(), if on { error_bound } else { dot_error_bound });
            within(&format!("cpuProducts {on}"), &values(&c).await, &a, &b, (n, n, n), bound);
        }
        let bad = Gpgpu::create(Some(kind.name().into()), options(&[("cpuProducts", "yes".into())])).await.err().unwrap();
        assert!(message(bad).contains("cpuProducts"));
    }
}
