//! Browser tests of float-float matrices through the JS API (`Gpgpu.uploadFloat64`, and
//! `matmul`, `add`, `sub`, `scale`, `dot`, `normSquared`, `mulVec`, `cg` on them), on both
//! backends: results against float64 within the bounds of `tests/float_float.rs`, and every
//! bad input a clear Error.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{message, settle};

use js_sys::{Float32Array, Float64Array, Object, Reflect};
use texla::backend::BackendKind;
use texla::{Gpgpu, GpuMatrix};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A float-float GpuMatrix read back by `readFloat64` (it must come as a Float64Array), and the
/// same values by `readInto` a Float64Array, which refuses a Float32Array; `read()`, float32's,
/// refuses it and names `readFloat64`.
async fn read64(m: &GpuMatrix) -> Vec<f64> {
    let v = settle(m.read_float64()).await.unwrap();
    assert!(
        v.is_instance_of::<Float64Array>(),
        "readFloat64() of a float-float matrix"
    );
    let err = settle(m.read()).await.unwrap_err();
    assert!(err.contains("read it with readFloat64()"), "{err}");
    let values = Float64Array::from(v).to_vec();
    let n = values.len() as u32;
    let out = Float64Array::new_with_length(n);
    settle(m.read_into(out.clone().into())).await.unwrap();
    assert_eq!(out.to_vec(), values, "readInto of a float-float matrix");
    let err = settle(m.read_into(js_sys::Float32Array::new_with_length(n).into())).await;
    assert!(err.unwrap_err().contains("takes a Float64Array"));
    values
}

fn f64s(data: &[f64]) -> JsValue {
    Float64Array::from(data).into()
}

async fn open(kind: BackendKind) -> Gpgpu {
    match Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await {
        Ok(gpu) => gpu,
        Err(e) => panic!("{} is required and is missing: {}", kind.name(), message(e)),
    }
}

on_both_backends! {
    async fn float_float_through_the_js_api(kind) {
        let gpu = open(kind).await;
        // 1 + 2^-40 is lost in float32 and kept in float-float.
        let tiny = 2f64.powi(-40);
        let x = [1.0 + tiny, 2.0, -3.0 - tiny, 0.1];
        let a = gpu.upload_float64(&f64s(&x), 2.0, 2.0).unwrap();
        assert!(a.float_float() && a.rows() == 2 && a.cols() == 2);
        let back = read64(&a).await;
        for (g, e) in back.iter().zip(&x) {
            assert!((g - e).abs() <= e.abs() * 2f64.powi(-49), "{g} {e}");
        }
        let eye = gpu.upload_float64(&f64s(&[1.0, 0.0, 0.0, 1.0]), 2.0, 2.0).unwrap();
        let c = gpu.matmul(&a, &eye, JsValue::UNDEFINED).unwrap();
        assert!(c.float_float());
        assert_eq!(read64(&c).await, back);
        let sum = read64(&gpu.add(&a, &a).unwrap()).await;
        assert_eq!(sum, back.iter().map(|v| 2.0 * v).collect::<Vec<_>>());
        let zero = read64(&gpu.sub(&a, &a).unwrap()).await;
        assert!(zero.iter().all(|v| *v == 0.0));
        let third = read64(&gpu.scale(&a, 1.0 / 3.0).unwrap()).await;
        for (g, e) in third.iter().zip(&back) {
            assert!((g - e / 3.0).abs() <= (e / 3.0).abs() * 2f64.powi(-46), "{g} {}", e / 3.0);
        }
        let v = gpu.upload_float64(&f64s(&[1.0 + tiny, 1.0]), 2.0, 1.0).unwrap();
        let dot = settle(gpu.dot(&v, &v)).await.unwrap().as_f64().unwrap();
        let exact = (1.0 + tiny) * (1.0 + tiny) + 1.0;
        assert!((dot - exact).abs() <= 4.0 * 2f64.powi(-46) * exact, "{dot} {exact}");
        let norm = settle(gpu.norm_squared(&v)).await.unwrap().as_f64().unwrap();
        assert_eq!(norm, dot);
        let av = read64(&gpu.mul_vec(&a, &v, JsValue::UNDEFINED).unwrap()).await;
        let exact = [x[0] * (1.0 + tiny) + x[1], x[2] * (1.0 + tiny) + x[3]];
        for (g, e) in av.iter().zip(&exact) {
            assert!((g - e).abs() <= 6.0 * 2f64.powi(-46) * 4.0, "{g} {e}");
        }
        // CG through the API: 1D Poisson of order 64 in float-float.
        let p = Gpgpu::problem("poisson1d", 64.0, 1.0, None).unwrap();
        let field = |o: &Object, k: &str| Reflect::get(o, &k.into()).unwrap();
        let to64 = |v: JsValue| Float64Array::new(&Float32Array::from(v).into());
        let a64 = gpu.upload_float64(&to64(field(&p, "a")).into(), 64.0, 64.0).unwrap();
        let b64 = gpu.upload_float64(&to64(field(&p, "b")).into(), 64.0, 1.0).unwrap();
        let options = Object::new();
        Reflect::set(&options, &"tol".into(), &1e-12.into()).unwrap();
        let r: Object = settle(gpu.cg(&a64, &b64, options.clone().into())).await.unwrap().into();
        assert_eq!(field(&r, "converged"), JsValue::TRUE);
        // x is a float-float GpuMatrix: its readFloat64() gives float64 within 1e-9 of the answer
        // (the problem's b is rounded to float32, which moves the answer by about 1e-7
        // relative; so compare with the float64 residual instead).
        let x = field(&r, "x");
        assert_eq!(Reflect::get(&x, &"floatFloat".into()).unwrap(), JsValue::TRUE);
        let read: js_sys::Function = Reflect::get(&x, &"readFloat64".into()).unwrap().into();
        let got = settle(read.call0(&x).unwrap().into()).await.unwrap();
        assert!(got.is_instance_of::<Float64Array>());
        let xs = Float64Array::from(got).to_vec();
        let (a, b) = (to64(field(&p, "a")).to_vec(), to64(field(&p, "b")).to_vec());
        let (mut r2, mut b2) = (0.0, 0.0);
        for i in 0..64 {
            let ax: f64 = (0..64).map(|j| a[i * 64 + j] * xs[j]).sum();
            r2 += (b[i] - ax) * (b[i] - ax);
            b2 += b[i] * b[i];
        }
        assert!((r2 / b2).sqrt() <= 1e-11, "float-float CG residual {:e}", (r2 / b2).sqrt());
    }

    async fn float_float_matrices_come_back_after_a_lost_gpu_from_their_copies(kind) {
        // What was uploaded and what was read back come back with all their bits; a result
        // never read is lost with a clear error; without copies an upload is lost too.
        let gpu = open(kind).await;
        let tiny = 2f64.powi(-40);
        let x = [1.0 + tiny, 2.0, -3.0 - tiny, 0.1];
        let a = gpu.upload_float64(&f64s(&x), 2.0, 2.0).unwrap();
        let read = gpu.matmul(&a, &a, JsValue::UNDEFINED).unwrap();
        let product = read64(&read).await;
        let never_read = gpu.add(&a, &a).unwrap();
        gpu.lose_context();
        let r = settle(gpu.restore()).await.unwrap();
        let count = |k: &str| Reflect::get(&r, &k.into()).unwrap().as_f64().unwrap();
        assert_eq!((count("restored"), count("lost")), (2.0, 1.0));
        let back = read64(&a).await;
        for (g, e) in back.iter().zip(&x) {
            assert!((g - e).abs() <= e.abs() * 2f64.powi(-49), "{g} {e}");
        }
        assert_eq!(read64(&read).await, product, "the read-back product, bit for bit");
        assert!(settle(never_read.read_float64()).await.unwrap_err().contains("lost with the GPU context"));
        // The restored matrices compute again on the new GPU.
        assert_eq!(read64(&gpu.matmul(&a, &a, JsValue::UNDEFINED).unwrap()).await, product);

        let options = Object::new();
        Reflect::set(&options, &"keepCopies".into(), &false.into()).unwrap();
        let bare = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        let b = bare.upload_float64(&f64s(&x), 2.0, 2.0).unwrap();
        bare.lose_context();
        let r = settle(bare.restore()).await.unwrap();
        assert_eq!(Reflect::get(&r, &"lost".into()).unwrap().as_f64(), Some(1.0));
        assert!(settle(b.read_float64()).await.unwrap_err().contains("lost with the GPU context"));
    }

    async fn float_float_bad_input_is_a_clear_error(kind) {
        let gpu = open(kind).await;
        let ff = gpu.upload_float64(&f64s(&[1.0, 2.0, 3.0, 4.0]), 2.0, 2.0).unwrap();
        let f32m = gpu.upload(&Float32Array::from(&[1.0f32, 2.0, 3.0, 4.0][..]).into(), 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        let thrown = |r: Result<GpuMatrix, JsValue>| message(r.err().expect("an Error"));
        // Data: wrong length, NaN, infinity, beyond float32, not a Float64Array.
        let err = thrown(gpu.upload_float64(&f64s(&[1.0, 2.0, 3.0]), 2.0, 2.0));
        assert!(err.contains("3 values") && err.contains("2x2"), "{err}");
        let err = thrown(gpu.upload_float64(&f64s(&[1.0, f64::NAN, 3.0, 4.0]), 2.0, 2.0));
        assert!(err.contains("element 1") && err.contains("NaN"), "{err}");
        let err = thrown(gpu.upload_float64(&f64s(&[f64::NEG_INFINITY]), 1.0, 1.0));
        assert!(err.contains("finite"), "{err}");
        let err = thrown(gpu.upload_float64(&f64s(&[-1e39]), 1.0, 1.0));
        assert!(err.contains("float32's range"), "{err}");
        let err = thrown(gpu.upload_float64(&Float32Array::new_with_length(4).into(), 2.0, 2.0));
        assert!(err.contains("Float64Array"), "{err}");
        // Mixing float-float and float32, in each order and each operation that takes both.
        for err in [
            thrown(gpu.matmul(&ff, &f32m, JsValue::UNDEFINED)),
            thrown(gpu.add(&f32m, &ff)),
            thrown(gpu.sub(&ff, &f32m)),
            thrown(gpu.mul_vec(&ff, &f32m, JsValue::UNDEFINED)),
            settle(gpu.dot(&ff, &f32m)).await.unwrap_err(),
            settle(gpu.cg(&ff, &f32m, JsValue::UNDEFINED)).await.unwrap_err(),
        ] {
            assert!(err.contains("do not mix"), "{err}");
        }
        // A float32-only operation given a float-float matrix.
        let ff2 = gpu.upload_float64(&f64s(&[1.0]), 1.0, 1.0).unwrap();
        for err in [
            thrown(gpu.transpose(&ff)),
            thrown(gpu.component_mul(&ff, &ff)),
            thrown(gpu.square(&ff, JsValue::UNDEFINED)),
            settle(gpu.sum(&ff)).await.unwrap_err(),
            message(gpu.map("a * 2", &js_sys::Array::of1(&JsValue::from(ff2))).err().expect("an Error")),
        ] {
            assert!(err.contains("float32 matrices") && err.contains("uploadFloat64"), "{err}");
        }
        let err = settle(ff.get(0.0, 0.0)).await.unwrap_err();
        assert!(err.contains("readFloat64()"), "{err}");
        // Factor, transposes, fused CG, a float32 x0.
        assert!(thrown(gpu.scale(&ff, f64::NAN)).contains("finite"));
        let t = Object::new();
        Reflect::set(&t, &"transposeA".into(), &JsValue::TRUE).unwrap();
        assert!(thrown(gpu.matmul(&ff, &ff, t.into())).contains("transpose"));
        let fast = Object::new();
        Reflect::set(&fast, &"kernel".into(), &"fast".into()).unwrap();
        assert!(thrown(gpu.matmul(&ff, &ff, fast.into())).contains("one kernel (\"auto\")"));
        let v = gpu.upload_float64(&f64s(&[1.0, 1.0]), 2.0, 1.0).unwrap();
        let fused = Object::new();
        Reflect::set(&fused, &"fused".into(), &JsValue::TRUE).unwrap();
        let err = settle(gpu.cg(&ff, &v, fused.into())).await.unwrap_err();
        assert!(err.contains("fused"), "{err}");
        let x0 = Object::new();
        let v32 = gpu.upload(&Float32Array::from(&[1.0f32, 1.0][..]).into(), 2.0, 1.0, JsValue::UNDEFINED).unwrap();
        Reflect::set(&x0, &"x0".into(), &JsValue::from(v32)).unwrap();
        let err = settle(gpu.cg(&ff, &v, x0.into())).await.unwrap_err();
        assert!(err.contains("do not mix"), "{err}");
        // Freed: a clear error; the Gpgpu still works.
        ff.release();
        assert!(thrown(gpu.add(&ff, &ff)).contains("freed"));
        let ok = gpu.matmul(&v, &gpu.upload_float64(&f64s(&[2.0, 3.0]), 1.0, 2.0).unwrap(), JsValue::UNDEFINED).unwrap();
        assert_eq!(read64(&ok).await, vec![2.0, 3.0, 2.0, 3.0]);
    }
}
