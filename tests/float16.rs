//! Float16 storage (`upload_as(.., Format::F16)`, JavaScript's `{ dtype: "float16" }`), on
//! BOTH backends: the texture holds each value rounded once to the nearest float16, every
//! kernel reads it as float32, and results are float32.
//!
//! Tolerance: an uploaded value reads back as `texla::gpu::float16` of it, bit for bit; a
//! product or A·x of float16 matrices is held to the float32 bound of the float64 product of
//! the rounded inputs (|gpu - exact| <= 2 (k + 2) 2^-24 sum_p |a_ip b_pj|,
//! `reference::dot_error_bound`): float16 storage adds no error past its one rounding.
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use texla::backend::{BackendKind, WebGpu};
use texla::gpu::{float16, ops, Format, MatVecKernel, ProductKernel};
use texla::reference::{compare, dot_error_bound, matmul, Rng};
use texla::{Gpgpu, GpuMatrix};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Checks `got` against the float64 product of the (float16-rounded) `a` and `b` within the
/// float32 bound.
fn within_bound(what: &str, got: &[f32], a: &[f32], b: &[f32], (m, k, n): (usize, usize, usize)) {
    let (exact, sums) = matmul(a, b, m, k, n);
    let bound: Vec<f64> = sums.iter().map(|&s| dot_error_bound(k, s)).collect();
    let cmp = compare(got, &exact, &bound);
    assert!(cmp.worst_bound_ratio <= 1.0, "{what} {m}x{k}x{n}: {cmp:?}");
}

/// Values across float16's range: random in [-1, 1), large, tiny (float16's subnormals), ties
/// between two float16 values, its largest, and zeros.
fn spread(len: usize, seed: u32) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let special = [
        65504.0,
        -65504.0,
        1.0 + 2f32.powi(-11),
        1e-7,
        -3e-5,
        0.0,
        -0.0,
        2049.0,
        1e4 / 3.0,
    ];
    rng.matrix(len, -1.0, 1.0)
        .into_iter()
        .enumerate()
        .map(|(i, v)| match i % 7 {
            0 => special[(i / 7) % special.len()],
            3 => v * 3000.0,
            _ => v,
        })
        .collect()
}

/// Around each of float16's 31,743 finite values h from 0 to under 65504, with either sign: h,
/// the float32 values just past h, just under the tie with the next, at it, just past it and
/// just under the next, and two between (float16's subnormals and float32's among them).
fn every_rounding() -> Vec<f32> {
    let next = |v: f32| f32::from_bits(v.to_bits() + 1);
    let before = |v: f32| f32::from_bits(v.to_bits() - 1);
    let mut values = Vec::new();
    for bits in 0..0x7bffu16 {
        let h = half::f16::from_bits(bits).to_f32();
        let up = half::f16::from_bits(bits + 1).to_f32();
        let tie = (h + up) / 2.0;
        for v in [
            h,
            next(h),
            before(tie),
            tie,
            next(tie),
            before(up),
            tie / 2.0,
            next(h) / 3.0,
        ] {
            values.extend([v, -v]);
        }
    }
    values.truncate(values.len() / 512 * 512);
    values
}

fn same_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(k) = (0..got.len()).find(|&k| got[k].to_bits() != want[k].to_bits()) {
        panic!("{what}: element {k} is {}, not {}", got[k], want[k]);
    }
}

async fn values(m: &GpuMatrix) -> Vec<f32> {
    let read = wasm_bindgen_futures::JsFuture::from(m.read())
        .await
        .unwrap();
    js_sys::Float32Array::from(read).to_vec()
}

on_both_backends! {
    async fn a_float16_upload_holds_the_nearest_float16_in_half_the_memory(kind) {
        let gpu = device(kind).await;
        // Small (copied by the CPU) and past 1 MiB, which on a hardware adapter WebGPU rounds
        // and packs on the GPU: both ways here on WebGPU, whatever the adapter. The last
        // matrix holds float16's every finite value, each between its neighbours, at the ties
        // and a float32 step either side of them, with either sign.
        let ways: &[bool] = if kind == BackendKind::WebGpu { &[false, true] } else { &[false] };
        for &on_gpu in ways {
            if let Some(webgpu) = gpu.backend_as::<WebGpu>() {
                webgpu.set_gpu_transfers(on_gpu);
            }
            let every = every_rounding();
            let shapes = [(1, 1), (5, 3), (37, 61), (600, 500), (every.len() / 512, 512)];
            for (k, (rows, cols)) in shapes.into_iter().enumerate() {
                let data = if k == 4 { every.clone() } else { spread(rows * cols, (rows + cols) as u32) };
                let before = gpu.memory().live_bytes;
                let m = gpu.upload_as(&data, (rows, cols), Format::F16).unwrap();
                assert_eq!(m.format(), Format::F16);
                let texels = m.layout().width() * m.layout().height();
                assert_eq!(gpu.memory().live_bytes - before, 8 * texels, "8 bytes a texel");
                // The half crate's rounding, not texla's: float16() is what the CPU's path uploads.
                let want: Vec<f32> = data.iter().map(|&v| half::f16::from_f32(v).to_f32()).collect();
                same_bits(&gpu.read(&m).await.unwrap(), &want, &format!("{rows}x{cols}, rounded on the GPU: {on_gpu}"));
                same_bits(&float16(&data).unwrap(), &want, &format!("float16() of {rows}x{cols}"));
            }
        }
        let rounded = float16(&[1.0 + 2f32.powi(-11), 1.0 + 3.0 * 2f32.powi(-11), 1e-8, 65519.0]).unwrap();
        assert_eq!(rounded, [1.0, 1.0 + 2f32.powi(-9), 0.0, 65504.0], "ties to even; under half the least subnormal is 0");
    }

    async fn products_and_a_x_of_float16_matrices_match_float64(kind) {
        let gpu = device(kind).await;
        let mut kernels = vec![ProductKernel::Auto, ProductKernel::Teaching, ProductKernel::FAST];
        let mut matvec = vec![MatVecKernel::Auto, MatVecKernel::Blocked, MatVecKernel::Naive];
        if kind == BackendKind::WebGpu {
            kernels.extend([ProductKernel::COMPUTE, ProductKernel::REGISTERS]);
            matvec.push(MatVecKernel::Compute);
        }
        for (i, &(m, k, n)) in [(1, 1, 1), (13, 29, 7), (130, 203, 259), (64, 1030, 65)].iter().enumerate() {
            let mut rng = Rng::new(500 + i as u32);
            let (a, b, x) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, -1.0, 1.0), rng.matrix(k, -1.0, 1.0));
            let (a16, b16, x16) = (float16(&a).unwrap(), float16(&b).unwrap(), float16(&x).unwrap());
            let ga = gpu.upload_as(&a, (m, k), Format::F16).unwrap();
            let gb = gpu.upload_as(&b, (k, n), Format::F16).unwrap();
            let gb32 = gpu.upload(&b, k, n).unwrap();
            for &kernel in &kernels {
                let c = gpu.mul_with(kernel, &ga, &gb).unwrap();
                assert_eq!(c.format(), Format::F32, "a result is float32");
                within_bound(&format!("{kernel:?} f16 x f16"), &gpu.read(&c).await.unwrap(), &a16, &b16, (m, k, n));
                let mixed = gpu.mul_with(kernel, &ga, &gb32).unwrap();
                within_bound(&format!("{kernel:?} f16 x f32"), &gpu.read(&mixed).await.unwrap(), &a16, &b, (m, k, n));
            }
            // The tensor-core product is native only (tests/tensor.rs): in a browser, a clear error.
            let err = gpu.mul_with(ProductKernel::Tensor, &ga, &gb).unwrap_err();
            assert!(err.to_string().contains("natively only"), "{err}");
            let gx = gpu.upload_as(&x, (k, 1), Format::F16).unwrap();
            for &kernel in &matvec {
                let y = gpu.mul_vec_with(kernel, &ga, &gx).unwrap();
                within_bound(&format!("{kernel:?} A x"), &gpu.read(&y).await.unwrap(), &a16, &x16, (m, k, 1));
            }
            // Element-wise: a + a in float32 of the rounded values, exactly.
            let sum = gpu.map(&ops::add(), &[&ga, &ga]).unwrap();
            let want: Vec<f32> = a16.iter().map(|v| v + v).collect();
            same_bits(&gpu.read(&sum).await.unwrap(), &want, "a + a");
        }
    }

    async fn a_float16_grid_of_tiles_uploads_reads_and_multiplies(kind) {
        // Textures of at most 64 texels a side: a 300 x 150 matrix is a grid of 2 x 3 tiles.
        let gpu = device(kind).await;
        gpu.set_tile_limit(64).unwrap();
        let (m, k, n) = (300, 150, 70);
        let mut rng = Rng::new(77);
        let (a, b) = (spread(m * k, 78), rng.matrix(k * n, -1.0, 1.0));
        let a16 = float16(&a).unwrap();
        let before = gpu.memory().live_bytes;
        let ga = gpu.upload_as(&a, (m, k), Format::F16).unwrap();
        assert_eq!(ga.format(), Format::F16);
        assert!(gpu.memory().live_bytes - before < 8 * k * m.div_ceil(4) + 8 * 64 * 16, "tiles of 8 bytes a texel");
        same_bits(&gpu.read(&ga).await.unwrap(), &a16, "a grid");
        let c = gpu.mul(&ga, &gpu.upload(&b, k, n).unwrap()).unwrap();
        within_bound("grid product", &gpu.read(&c).await.unwrap(), &a16, &b, (m, k, n));
        let t = gpu.transpose(&ga).unwrap();
        let want: Vec<f32> = (0..k * m).map(|i| a16[(i % m) * k + i / m]).collect();
        same_bits(&gpu.read(&t).await.unwrap(), &want, "its transpose");
        // A value beyond float16 in the second tile is named by its index in the whole array.
        let mut bad = a.clone();
        bad[10 * k + 100] = 1e5;
        let err = gpu.upload_as(&bad, (m, k), Format::F16).unwrap_err();
        assert!(err.to_string().contains(&format!("value at index {} is beyond", 10 * k + 100)), "{err}");
    }

    async fn a_value_beyond_float16_is_a_clear_error(kind) {
        let gpu = device(kind).await;
        let err = gpu.upload_as(&[1.0, -70000.0], (2, 1), Format::F16).unwrap_err();
        assert!(err.to_string().contains("value at index 1 is beyond") && err.to_string().contains("65504"), "{err}");
        // 65519.99 rounds to 65504; 65520 would round to an infinity.
        assert!(gpu.upload_as(&[65520.0], (1, 1), Format::F16).is_err());
        let edge = gpu.upload_as(&[65519.99, -65519.99], (2, 1), Format::F16).unwrap();
        assert_eq!(gpu.read(&edge).await.unwrap(), [65504.0, -65504.0]);
        // Infinities and NaN are float16 values; the GPU works on.
        let special = gpu.upload_as(&[f32::INFINITY, f32::NAN], (2, 1), Format::F16).unwrap();
        let back = gpu.read(&special).await.unwrap();
        assert!(back[0] == f32::INFINITY && back[1].is_nan(), "{back:?}");
    }

    async fn a_page_uploads_float16_by_dtype_and_keeps_it_through_a_lost_gpu(kind) {
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let options = |dtype: &str| {
            let o = js_sys::Object::new();
            js_sys::Reflect::set(&o, &"dtype".into(), &dtype.into()).unwrap();
            JsValue::from(o)
        };
        let data = [0.1f32, 3.0, 2049.0, -1.0 / 3.0];
        let rounded = float16(&data).unwrap();
        let array: JsValue = js_sys::Float32Array::from(&data[..]).into();
        let m = gpu.upload(&array, 2.0, 2.0, options("float16")).unwrap();
        assert_eq!(m.dtype(), "float16");
        assert_eq!(gpu.upload(&array, 2.0, 2.0, JsValue::UNDEFINED).unwrap().dtype(), "float32");
        same_bits(&values(&m).await, &rounded, "read");
        let product = gpu.matmul(&m, &m, JsValue::UNDEFINED).unwrap();
        assert_eq!(product.dtype(), "float32");
        within_bound("matmul", &values(&product).await, &rounded, &rounded, (2, 2, 2));
        // set rounds like the upload did.
        wasm_bindgen_futures::JsFuture::from(m.set(0.0, 0.0, 0.3)).await.unwrap();
        let mut want = rounded.clone();
        want[0] = float16(&[0.3]).unwrap()[0];
        same_bits(&values(&m).await, &want, "after set");
        let beyond = wasm_bindgen_futures::JsFuture::from(m.set(0.0, 1.0, 1e5)).await.unwrap_err();
        assert!(format!("{beyond:?}").contains("beyond the range of this float16 matrix"), "{beyond:?}");
        let texture = m.texture().unwrap();
        assert_eq!(js_sys::Reflect::get(&texture, &"format".into()).unwrap(), "rgba16float");
        for bad in ["float64", "half"] {
            let err = gpu.upload(&array, 2.0, 2.0, options(bad)).err().unwrap();
            assert!(format!("{err:?}").contains("dtype must be"), "{err:?}");
        }
        let big: JsValue = js_sys::Float32Array::from(&[1e5f32][..]).into();
        assert!(format!("{:?}", gpu.upload(&big, 1.0, 1.0, options("float16")).err().unwrap()).contains("65504"));
        // A large array goes from the page's array to the GPU (which rounds it on a hardware
        // adapter, here too on WebGPU); its range is checked a piece at a time, and the first
        // value beyond it named wherever it is.
        if let Some(webgpu) = gpu.gpu().backend_as::<WebGpu>() {
            webgpu.set_gpu_transfers(true);
        }
        let mut large = spread(600 * 500, 9);
        let array: JsValue = js_sys::Float32Array::from(large.as_slice()).into();
        let m16 = gpu.upload(&array, 600.0, 500.0, options("float16")).unwrap();
        same_bits(&values(&m16).await, &float16(&large).unwrap(), "a large array");
        large[70_000] = -1e5;
        large[200_000] = 1e6;
        let array: JsValue = js_sys::Float32Array::from(large.as_slice()).into();
        let err = gpu.upload(&array, 600.0, 500.0, options("float16")).err().unwrap();
        assert!(format!("{err:?}").contains("value at index 70000 is beyond"), "{err:?}");
        // A lost GPU: the matrix comes back from its copy, float16 still.
        gpu.lose_context();
        wasm_bindgen_futures::JsFuture::from(gpu.restore()).await.unwrap();
        assert_eq!(m.dtype(), "float16");
        same_bits(&values(&m).await, &want, "after a lost GPU");
        let product = gpu.matmul(&m, &m, JsValue::UNDEFINED).unwrap();
        within_bound("matmul after a lost GPU", &values(&product).await, &want, &want, (2, 2, 2));
    }
}
