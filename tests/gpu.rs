//! Browser tests of the products, the kernels and the JS API's errors: every GPU test runs on
//! BOTH backends and fails (never skips) when the backend it asks for is missing (transfers:
//! tests/transfers.rs). Run with `cargo test --target wasm32-unknown-unknown --test gpu`.
//!
//! Tolerance: each element of a product of inner dimension k must satisfy
//! |gpu - exact| <= 2 (k + 2) 2^-24 sum_p |a_ip b_pj| (see `reference::dot_error_bound`);
//! integer matrices whose products and partial sums fit in 24 bits must come back exact.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, message, settle};
use texla::backend::BackendKind;
use texla::error::Error;
use texla::gpu::{Gpu, MatVecKernel, ProductKernel};
use texla::reference::{compare, dot_error_bound, matmul, Rng};
use texla::{Gpgpu, GpuMatrix};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Multiplies random m x k and k x n matrices on the GPU, by the default kernel (the fastest
/// here) and by the teaching kernel, and checks every element against the float64 product
/// within the bound.
async fn check_product(gpu: &Gpu, m: usize, k: usize, n: usize, seed: u32) {
    let mut rng = Rng::new(seed);
    let a = rng.matrix(m * k, -1.0, 1.0);
    let b = rng.matrix(k * n, -1.0, 1.0);
    let ga = gpu.upload(&a, m, k).unwrap();
    let gb = gpu.upload(&b, k, n).unwrap();
    let default = gpu.mul(&ga, &gb).unwrap();
    assert_default_kernel_ran(gpu, n);
    let teaching = gpu.mul_with(ProductKernel::Teaching, &ga, &gb).unwrap();
    for (what, gc) in [("mul", default), ("mul_teaching", teaching)] {
        assert_eq!((gc.rows(), gc.cols()), (m, n));
        within_bound(what, &gpu.read(&gc).await.unwrap(), &a, &b, (m, k, n));
    }
}

/// The last kernel that ran is the one `product_kernel` names (for a product with n columns:
/// the fast kernel writes one column per target, so with one column it is the teaching kernel).
fn assert_default_kernel_ran(gpu: &Gpu, n: usize) {
    let shader = gpu.last_shader().unwrap();
    let registers;
    let marker = match gpu.product_kernel().0 {
        ProductKernel::Fast { .. } if n > 1 => "acc1",
        ProductKernel::Teaching | ProductKernel::Fast { .. } => "MOP",
        ProductKernel::Compute { .. } => "@compute",
        ProductKernel::Registers { rows, cols } => {
            registers = texla::kernels::matmul_registers(rows, cols).wgsl;
            &*registers
        }
        other => panic!("product_kernel never chooses {other:?}"),
    };
    assert!(
        shader.contains(marker),
        "{:?} did not run: {shader}",
        gpu.product_kernel()
    );
}

/// Checks `got` (m x n) against the float64 product of a (m x k) and b (k x n) within the bound.
fn within_bound(what: &str, got: &[f32], a: &[f32], b: &[f32], (m, k, n): (usize, usize, usize)) {
    assert_eq!(
        got.len(),
        m * n,
        "{what}: read-back returns exactly m*n values"
    );
    let (exact, sums) = matmul(a, b, m, k, n);
    let bound: Vec<f64> = sums.iter().map(|&s| dot_error_bound(k, s)).collect();
    let cmp = compare(got, &exact, &bound);
    assert!(
        cmp.worst_bound_ratio <= 1.0,
        "{what} {m}x{k} * {k}x{n}: element {} is {} but should be {} (bound {}); {cmp:?}",
        cmp.worst_index,
        got[cmp.worst_index],
        exact[cmp.worst_index],
        bound[cmp.worst_index]
    );
}

/// Squares a random n x n matrix with `square` and checks it like `check_product`.
async fn check_square(gpu: &Gpu, n: usize, seed: u32) {
    let a = Rng::new(seed).matrix(n * n, -1.0, 1.0);
    let m = gpu.upload(&a, n, n).unwrap();
    for (what, s) in [
        ("square", gpu.square(&m).unwrap()),
        (
            "square_teaching",
            gpu.square_with(ProductKernel::Teaching, &m).unwrap(),
        ),
    ] {
        within_bound(what, &gpu.read(&s).await.unwrap(), &a, &a, (n, n, n));
    }
}

on_both_backends! {
    async fn the_precision_probe_finds_ieee_float32(kind) {
        let gpu = device(kind).await;
        let p = gpu.probe_precision().await.unwrap();
        assert!(p.ieee(), "{kind:?}: {:?}", p.failed);
        assert_eq!(p.checks, 10);
        // What the JS API reports after create.
        let js = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let float32 = js_sys::Reflect::get(&js.capabilities(), &"float32".into()).unwrap();
        let field = |name: &str| js_sys::Reflect::get(&float32, &name.into()).unwrap();
        assert_eq!(field("ieee"), JsValue::TRUE);
        assert_eq!(field("checks").as_f64(), Some(10.0));
        assert_eq!(js_sys::Array::from(&field("failed")).length(), 0);
    }

    async fn products_of_every_shape_match_float64(kind) {
        let gpu = device(kind).await;
        for (i, &(m, k, n)) in [(1, 1, 1), (1, 7, 1), (3, 5, 2), (13, 29, 7), (7, 1, 5), (2, 3, 9)]
            .iter()
            .enumerate()
        {
            check_product(gpu.as_ref(), m, k, n, 10 + i as u32).await;
        }
    }

    async fn products_sum_k_in_blocks(kind) {
        // 4096 terms of 1 + 2^-15: one running sum in float32 drops the 2^-15 of every term
        // added once the sum passes 1024 (a quarter of its last place) and ends 0.0625 short,
        // a relative error of 1.5e-5 (in any split of k into 1 to 4 slices); sums of blocks of 8
        // or more terms, added to the running sum, keep every bit: 4096.125 exactly. Held to
        // 1e-6: the fast fragment kernel (WebGL2's default) and, on WebGPU, the tiled compute
        // kernel (a hardware adapter's) at every chunk depth the device allows, split or not.
        let gpu = device(kind).await;
        let (m, k, n) = (8, 4096, 8);
        let x = 1.0 + 2f32.powi(-15);
        let (a, b) = (gpu.upload(&vec![1.0; m * k], m, k).unwrap(), gpu.upload(&vec![x; k * n], k, n).unwrap());
        let mut kernels = vec![ProductKernel::FAST];
        if kind == BackendKind::WebGpu {
            let storage = gpu.capabilities().max_workgroup_storage;
            for chunk in texla::kernels::TILED_CHUNKS.into_iter().filter(|&c| texla::kernels::tiled_workgroup_bytes(c, 128) <= storage) {
                kernels.extend([None, Some(1), Some(4)].map(|slices| ProductKernel::Compute { chunk, slices, width: Some(128) }));
                for &width in texla::kernels::tiled_widths(chunk).iter().filter(|&&w| w != 128) {
                    kernels.extend([Some(1), Some(4)].map(|slices| ProductKernel::Compute { chunk, slices, width: Some(width) }));
                }
            }
        }
        let exact = k as f64 * f64::from(x);
        let mut wrong = vec![];
        for kernel in kernels {
            let got = gpu.read(&gpu.mul_with(kernel, &a, &b).unwrap()).await.unwrap();
            let worst = got.iter().map(|&c| (f64::from(c) - exact).abs() / exact).fold(0.0, f64::max);
            if worst > 1e-6 {
                wrong.push(format!("{kernel:?}: relative error {worst:.1e} (C[0] = {})", got[0]));
            }
        }
        assert!(wrong.is_empty(), "{kind:?}, C should be {exact} everywhere: {wrong:#?}");
    }

    async fn compute_path_matches_on_webgpu_and_is_refused_on_webgl2(kind) {
        let gpu = device(kind).await;
        // Shapes inside one block, across block edges (64 rows x 128 columns) and k chunks; the
        // last four split k into 3, 4, 4 and 2 slices (their sum a second pass).
        for (i, &(m, k, n)) in [(1, 1, 1), (13, 29, 7), (37, 70, 33), (64, 64, 64), (100, 17, 129), (130, 203, 259), (37, 1030, 65), (130, 600, 259), (260, 140, 259)].iter().enumerate() {
            let mut rng = Rng::new(60 + i as u32);
            let (a, b) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, -1.0, 1.0));
            let (ga, gb) = (gpu.upload(&a, m, k).unwrap(), gpu.upload(&b, k, n).unwrap());
            // The tiled kernel (by size, and in blocks of 64 columns), and the one that keeps its
            // outputs in registers.
            let narrow = ProductKernel::Compute { chunk: 32, slices: None, width: Some(64) };
            for (name, result) in [("compute", gpu.mul_with(ProductKernel::COMPUTE, &ga, &gb)), ("compute, 64 wide", gpu.mul_with(narrow, &ga, &gb)), ("registers", gpu.mul_with(ProductKernel::REGISTERS, &ga, &gb))] {
                match (kind, result) {
                    (BackendKind::WebGpu, Ok(c)) => {
                        let got = gpu.read(&c).await.unwrap();
                        let (exact, sums) = matmul(&a, &b, m, k, n);
                        let bound: Vec<f64> = sums.iter().map(|&s| dot_error_bound(k, s)).collect();
                        let cmp = compare(&got, &exact, &bound);
                        assert!(cmp.worst_bound_ratio <= 1.0, "{name} {m}x{k}x{n}: {cmp:?}");
                        // The result mixes with the fragment path: (A B) through the fragment kernel.
                        assert_eq!(gpu.mul_with(ProductKernel::FAST, &c, &gpu.identity(n, n).unwrap()).map(|_| ()), Ok(()));
                    }
                    (BackendKind::WebGl2, Err(e)) => assert!(e.to_string().contains("needs WebGPU"), "{e}"),
                    (_, other) => panic!("{kind:?} {name}: unexpected {:?}", other.map(|_| ())),
                }
            }
        }
    }

    async fn last_shaders_are_the_kernel_in_both_languages(kind) {
        let gpu = device(kind).await;
        let (a, b) = (gpu.upload(&[1.0; 6], 2, 3).unwrap(), gpu.upload(&[1.0; 6], 3, 2).unwrap());
        gpu.mul_with(ProductKernel::Teaching, &a, &b).unwrap();
        let (wgsl, glsl) = gpu.last_shaders().unwrap();
        let glsl = glsl.expect("a fragment kernel has its GLSL twin");
        assert!(wgsl.contains("fn kernel(texel: vec2<i32>)") && wgsl.contains("MOP"), "{wgsl}");
        assert!(glsl.starts_with("#version 300 es") && glsl.contains("vec4 kernel(ivec2 texel)") && glsl.contains("MOP"), "{glsl}");
        // The one this backend ran is last_shader's.
        let ran = if kind == BackendKind::WebGpu { &wgsl } else { &glsl };
        assert_eq!(gpu.last_shader().as_ref(), Some(ran));
        if kind == BackendKind::WebGpu {
            gpu.mul_with(ProductKernel::COMPUTE, &a, &b).unwrap();
            let (wgsl, glsl) = gpu.last_shaders().unwrap();
            assert!(wgsl.contains("@compute") && glsl.is_none(), "a compute kernel has no GLSL twin");
        }
    }

    async fn fast_fragment_kernel_matches_float64_on_odd_shapes(kind) {
        let gpu = device(kind).await;
        let targets = gpu.capabilities().max_render_targets;
        assert!(targets >= 2, "{kind:?} offers {targets} render targets");
        web_sys::console::log_1(&format!("{kind:?}: {targets} render targets, {} bytes of workgroup memory", gpu.capabilities().max_workgroup_storage).into());
        // n below, at and above the number of targets, divisible by it and not, k % 4 = 0..3.
        for (i, &(m, k, n)) in [(1, 1, 1), (3, 5, 2), (5, 3, 9), (13, 29, 7), (37, 70, 33), (64, 64, 64), (100, 17, 129), (6, 2, 17)]
            .iter()
            .enumerate()
        {
            let mut rng = Rng::new(80 + i as u32);
            let (a, b) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, -1.0, 1.0));
            let (ga, gb) = (gpu.upload(&a, m, k).unwrap(), gpu.upload(&b, k, n).unwrap());
            let c = gpu.mul_with(ProductKernel::FAST, &ga, &gb).unwrap();
            assert_eq!((c.rows(), c.cols()), (m, n));
            within_bound("fast", &gpu.read(&c).await.unwrap(), &a, &b, (m, k, n));
            // The result is an ordinary matrix: the teaching kernel takes it as input.
            let again = gpu.mul(&c, &gpu.identity(n, n).unwrap()).unwrap();
            assert_eq!(gpu.read(&again).await.unwrap(), gpu.read(&c).await.unwrap());
        }
        // Squaring, 257 x 257 (not a multiple of 4 or of the targets).
        let n = 257;
        let a = Rng::new(257).matrix(n * n, -1.0, 1.0);
        let s = gpu.square_with(ProductKernel::FAST, &gpu.upload(&a, n, n).unwrap()).unwrap();
        within_bound("fast square", &gpu.read(&s).await.unwrap(), &a, &a, (n, n, n));
        let rect = gpu.fill(2, 3, 1.0).unwrap();
        assert!(gpu.square_with(ProductKernel::FAST, &rect).unwrap_err().to_string().contains("not square"));
        assert!(gpu.mul_with(ProductKernel::FAST, &rect, &rect).unwrap_err().to_string().contains("inner dimensions 3 and 2 differ"));
        // Integer products are exact, as with the teaching kernel.
        let mut rng = Rng::new(6);
        let (a, b) = (rng.integers(37 * 61, -8, 8), rng.integers(61 * 23, -8, 8));
        let c = gpu.mul_with(ProductKernel::FAST, &gpu.upload(&a, 37, 61).unwrap(), &gpu.upload(&b, 61, 23).unwrap()).unwrap();
        let exact: Vec<f32> = matmul(&a, &b, 37, 61, 23).0.iter().map(|&v| v as f32).collect();
        assert_eq!(gpu.read(&c).await.unwrap(), exact);
    }

    async fn compute_matvec_matches_on_webgpu_and_is_refused_on_webgl2(kind) {
        let gpu = device(kind).await;
        // Up to 8160 rows in blocks of 4 texel rows, past it in blocks of 8 (kernels::matvec_tiled).
        for (i, &(m, k)) in [(1, 1), (7, 5), (13, 29), (33, 64), (100, 1000), (257, 3), (300, 257), (8160, 9), (8197, 70)].iter().enumerate() {
            let mut rng = Rng::new(90 + i as u32);
            let (a, x) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k, -1.0, 1.0));
            let (ga, gx) = (gpu.upload(&a, m, k).unwrap(), gpu.upload(&x, k, 1).unwrap());
            match (kind, gpu.mul_vec_with(MatVecKernel::Compute, &ga, &gx)) {
                (BackendKind::WebGpu, Ok(y)) => {
                    assert_eq!((y.rows(), y.cols()), (m, 1));
                    within_bound("compute A x", &gpu.read(&y).await.unwrap(), &a, &x, (m, k, 1));
                }
                (BackendKind::WebGl2, Err(e)) => assert!(e.to_string().contains("needs WebGPU"), "{e}"),
                (_, other) => panic!("{kind:?}: unexpected {:?}", other.map(|_| ())),
            }
        }
        let a = gpu.fill(3, 4, 1.0).unwrap();
        let err = gpu.mul_vec_with(MatVecKernel::Compute, &a, &gpu.fill(3, 1, 1.0).unwrap()).unwrap_err();
        assert!(err.to_string().contains("4x1 vector"), "{err}");
    }

    async fn tall_times_thin_100x1000_by_1000x3(kind) {
        let gpu = device(kind).await;
        check_product(gpu.as_ref(), 100, 1000, 3, 3).await;
    }

    async fn squares_of_64_and_257(kind) {
        let gpu = device(kind).await;
        check_square(gpu.as_ref(), 64, 64).await;
        check_square(gpu.as_ref(), 257, 257).await;
    }

    async fn integer_products_are_exact(kind) {
        // |a|, |b| <= 8 and k = 61: every partial sum stays below 61 * 64 < 2^24.
        let gpu = device(kind).await;
        let (m, k, n) = (37, 61, 23);
        let mut rng = Rng::new(5);
        let a = rng.integers(m * k, -8, 8);
        let b = rng.integers(k * n, -8, 8);
        let c = gpu.mul(&gpu.upload(&a, m, k).unwrap(), &gpu.upload(&b, k, n).unwrap()).unwrap();
        let got = gpu.read(&c).await.unwrap();
        let exact: Vec<f32> = matmul(&a, &b, m, k, n).0.iter().map(|&v| v as f32).collect();
        assert_eq!(got, exact);
    }

    async fn chained_products_stay_on_the_gpu(kind) {
        // (A * B) * C without a read in between equals the float64 product within a bound.
        let gpu = device(kind).await;
        let mut rng = Rng::new(9);
        let (a, b, c) = (rng.integers(6 * 5, -3, 3), rng.integers(5 * 7, -3, 3), rng.integers(7 * 2, -3, 3));
        let ab = gpu.mul(&gpu.upload(&a, 6, 5).unwrap(), &gpu.upload(&b, 5, 7).unwrap()).unwrap();
        let abc = gpu.mul(&ab, &gpu.upload(&c, 7, 2).unwrap()).unwrap();
        let ab64: Vec<f32> = matmul(&a, &b, 6, 5, 7).0.iter().map(|&v| v as f32).collect();
        let exact: Vec<f32> = matmul(&ab64, &c, 6, 7, 2).0.iter().map(|&v| v as f32).collect();
        assert_eq!(gpu.read(&abc).await.unwrap(), exact);
    }

    async fn bad_shapes_are_clear_errors(kind) {
        let gpu = device(kind).await;
        let max = gpu.capabilities().max_texture_size as usize;
        assert!(max >= 2048, "max texture size {max}");
        assert_eq!(
            gpu.upload(&[1.0; 5], 2, 3).unwrap_err(),
            Error::DataLength { len: 5, rows: 2, cols: 3 }
        );
        assert!(matches!(gpu.upload(&[], 0, 3), Err(Error::ZeroDimension { .. })));
        let too_wide = vec![0.0; max + 1];
        // Past one texture a matrix is a grid of tiles (tests/tiles.rs), up to 2^30 elements.
        let grid = gpu.upload(&too_wide, 1, max + 1).unwrap();
        assert_eq!(texla::gpu::Gpu::tile_count(&grid), 2);
        let err = gpu.fill(1 << 16, 1 << 15, 0.0).unwrap_err().to_string();
        assert!(err.contains("at most 2^30 elements"), "{err}");
        // The largest shapes of one texture: one row of max columns, 4*max rows of one column.
        let wide = gpu.upload(&too_wide[..max], 1, max).unwrap();
        assert_eq!(gpu.read(&wide).await.unwrap().len(), max);
        let tall = gpu.upload(&vec![1.0; 4 * max], 4 * max, 1).unwrap();
        assert_eq!(gpu.read(&tall).await.unwrap().len(), 4 * max);
        let a = gpu.upload(&[1.0; 6], 2, 3).unwrap();
        let err = gpu.mul(&a, &a).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot multiply a 2x3 matrix by a 2x3 matrix: the inner dimensions 3 and 2 differ"
        );
        let err = gpu.square(&a).unwrap_err();
        assert!(err.to_string().contains("not square"), "{err}");
        // The device is still usable after every error.
        let ok = gpu.mul(&a, &gpu.upload(&[1.0; 3], 3, 1).unwrap()).unwrap();
        assert_eq!(gpu.read(&ok).await.unwrap(), vec![3.0, 3.0]);
    }

    async fn js_api_rejects_bad_input_and_stays_usable(kind) {
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap_or_else(|e| {
            panic!("{} is required and missing: {}", kind.name(), message(e))
        });
        assert_eq!(gpu.backend(), kind.name());
        let data: JsValue = js_sys::Float32Array::from(&[1.0f32, 2.0, 3.0, 4.0][..]).into();
        let m = gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        assert!(message(gpu.upload(&data, 3.0, 2.0, JsValue::UNDEFINED).err().unwrap()).contains("data has 4 values"));
        assert!(message(gpu.upload(&data, -1.0, 2.0, JsValue::UNDEFINED).err().unwrap()).contains("whole number"));
        assert!(message(gpu.upload(&data, 1.5, 2.0, JsValue::UNDEFINED).err().unwrap()).contains("whole number"));
        assert!(message(gpu.upload(&JsValue::from(3), 1.0, 1.0, JsValue::UNDEFINED).err().unwrap()).contains("Float32Array"));
        let other = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let foreign = other.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        assert!(message(gpu.matmul(&m, &foreign, JsValue::UNDEFINED).err().unwrap()).contains("another Gpgpu"));
        let s = gpu.square(&m, JsValue::UNDEFINED).unwrap();
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(s.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), vec![7.0, 10.0, 15.0, 22.0]);
        // readInto takes a Float32Array of exactly rows * cols values, and nothing else.
        for out in [js_sys::Float32Array::new_with_length(3).into(), js_sys::Float64Array::new_with_length(4).into(), JsValue::from(4)] {
            let err = settle(s.read_into(out)).await.unwrap_err();
            assert!(err.contains("readInto takes a Float32Array of 4 values for this 2x2 matrix"), "{err}");
        }
        // matmul's transpose options: A^T A and A A^T of [[1, 2], [3, 4]].
        for (key, want) in [("transposeA", [10.0f32, 14.0, 14.0, 20.0]), ("transposeB", [5.0, 11.0, 11.0, 25.0])] {
            let options = js_sys::Object::new();
            js_sys::Reflect::set(&options, &key.into(), &true.into()).unwrap();
            let p = gpu.matmul(&m, &m, options.into()).unwrap();
            let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(p.read()).await.unwrap().into();
            assert_eq!(got.to_vec(), want.to_vec(), "{key}");
        }
        // The kernel as an option: every kernel of matmul, square and mulVec gives the same
        // integers where this backend has it, and a clear error naming those it has where not;
        // a misnamed kernel and perPass with another kernel are clear errors too.
        let options = |pairs: &[(&str, JsValue)]| -> JsValue {
            let o = js_sys::Object::new();
            for (key, value) in pairs {
                js_sys::Reflect::set(&o, &(*key).into(), value).unwrap();
            }
            o.into()
        };
        let read = |p: GpuMatrix| async move {
            js_sys::Float32Array::from(wasm_bindgen_futures::JsFuture::from(p.read()).await.unwrap()).to_vec()
        };
        let v = gpu.upload(&js_sys::Float32Array::from(&[1.0f32, -1.0][..]).into(), 2.0, 1.0, JsValue::UNDEFINED).unwrap();
        let kernels = [
            ("teaching", false), ("fast", false), ("compute", true), ("registers", true), ("passes", false),
            ("blocked", false), ("naive", false), ("auto", false),
        ];
        for (kernel, compute) in kernels {
            let o = options(&[("kernel", kernel.into())]);
            let runs = match kernel {
                "blocked" | "naive" => vec![gpu.mul_vec(&m, &v, o.clone())],
                "teaching" | "fast" | "registers" | "passes" => vec![gpu.matmul(&m, &m, o.clone()), gpu.square(&m, o.clone())],
                _ => vec![gpu.matmul(&m, &m, o.clone()), gpu.square(&m, o.clone()), gpu.mul_vec(&m, &v, o.clone())],
            };
            for run in runs {
                match run {
                    Err(e) if compute && kind == BackendKind::WebGl2 => {
                        let e = message(e);
                        assert!(e.contains("needs WebGPU; the kernels here are \"auto\""), "{kernel}: {e}");
                    }
                    Ok(p) if p.cols() == 1 => assert_eq!(read(p).await, vec![-1.0, -1.0], "{kernel}"),
                    Ok(p) => assert_eq!(read(p).await, vec![7.0, 10.0, 15.0, 22.0], "{kernel}"),
                    Err(e) => panic!("{kind:?} {kernel}: {}", message(e)),
                }
            }
        }
        let passes = options(&[("kernel", "passes".into()), ("perPass", 1.into())]);
        assert_eq!(read(gpu.matmul(&m, &m, passes).unwrap()).await, vec![7.0, 10.0, 15.0, 22.0]);
        let e = message(gpu.matmul(&m, &m, options(&[("kernel", "tiled".into())])).err().unwrap());
        assert!(e.contains("matmul has no kernel \"tiled\"; its kernels are \"auto\", \"teaching\", \"fast\", \"compute\", \"registers\", \"cpu\", \"passes\""), "{e}");
        let e = message(gpu.mul_vec(&m, &v, options(&[("kernel", "fast".into())])).err().unwrap());
        assert!(e.contains("mulVec has no kernel \"fast\"; its kernels are \"auto\", \"blocked\", \"naive\", \"compute\""), "{e}");
        let e = message(gpu.matmul(&m, &m, options(&[("kernel", "fast".into()), ("perPass", 2.into())])).err().unwrap());
        assert!(e.contains("perPass belongs to kernel \"passes\", not \"fast\""), "{e}");
        let e = message(gpu.square(&m, options(&[("transposeA", true.into())])).err().unwrap());
        assert!(e.contains("square has no option \"transposeA\""), "{e}");
        m.release();
        assert!(message(gpu.square(&m, JsValue::UNDEFINED).err().unwrap()).contains("freed"));
        let err = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap_err();
        assert!(message(err).contains("freed"));
        // Operations that take arrays of matrices, and in-place ones.
        let ones = gpu.fill(2.0, 2.0, 1.0).unwrap();
        let twos = gpu.fill(2.0, 2.0, 2.0).unwrap();
        let inputs = js_sys::Array::of2(&JsValue::from(ones.id()), &JsValue::UNDEFINED);
        assert!(message(gpu.map("a + b", &inputs).err().unwrap()).contains("array of GpuMatrix"));
        let by_id = |ids: &[u32]| -> js_sys::Array {
            ids.iter().map(|id| {
                let o = js_sys::Object::new();
                js_sys::Reflect::set(&o, &"id".into(), &(*id).into()).unwrap();
                JsValue::from(o)
            }).collect()
        };
        let sum = gpu.map("a * 3 + b", &by_id(&[ones.id(), twos.id()])).unwrap();
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(sum.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), vec![5.0; 4]);
        assert!(message(gpu.map("a + b", &by_id(&[ones.id(), foreign.id()])).err().unwrap()).contains("another Gpgpu"));
        assert!(message(gpu.map("cos(", &by_id(&[ones.id()])).err().unwrap()).contains("bad expression"));
        sum.add_assign(&twos).unwrap();
        sum.add_scaled_mut(&ones, -1.0).unwrap();
        sum.scale_mut(0.5).unwrap();
        sum.add_component_mul_mut(&twos, &twos).unwrap();
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(sum.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), vec![7.0; 4]);
        let live = |g: &Gpgpu| js_sys::Reflect::get(&g.memory(), &"liveTextures".into()).unwrap().as_f64().unwrap();
        let before = live(&gpu);
        twos.release();
        assert_eq!(live(&gpu), before - 1.0);
        assert!(message(gpu.map("a", &by_id(&[twos.id()])).err().unwrap()).contains("freed"));
        assert_eq!(Gpgpu::expression_as_javascript("max(a, 2)").unwrap(), "Math.max(a, (2.0))");
        let plain: JsValue = js_sys::Array::of2(&5.into(), &6.into()).into();
        let v = gpu.upload(&plain, 1.0, 2.0, JsValue::UNDEFINED).unwrap();
        assert_eq!((v.rows(), v.cols()), (1, 2));
        assert!(gpu.capabilities().is_object());
    }
}

#[wasm_bindgen_test]
async fn unknown_backend_name_is_refused() {
    let err = Gpgpu::create(Some("vulkan".into()), JsValue::UNDEFINED)
        .await
        .err()
        .unwrap();
    assert!(message(err).contains("unknown backend \"vulkan\""));
}

#[wasm_bindgen_test]
async fn both_backends_agree() {
    let (a, b) = (
        device(BackendKind::WebGpu).await,
        device(BackendKind::WebGl2).await,
    );
    let (m, k, n) = (13, 29, 7);
    let mut rng = Rng::new(77);
    let (x, y) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, -1.0, 1.0));
    let ra = a
        .read(
            &a.mul(&a.upload(&x, m, k).unwrap(), &a.upload(&y, k, n).unwrap())
                .unwrap(),
        )
        .await
        .unwrap();
    let rb = b
        .read(
            &b.mul(&b.upload(&x, m, k).unwrap(), &b.upload(&y, k, n).unwrap())
                .unwrap(),
        )
        .await
        .unwrap();
    let (_, sums) = matmul(&x, &y, m, k, n);
    for i in 0..m * n {
        let diff = f64::from((ra[i] - rb[i]).abs());
        assert!(
            diff <= 2.0 * dot_error_bound(k, sums[i]),
            "element {i}: {} vs {}",
            ra[i],
            rb[i]
        );
    }
}
