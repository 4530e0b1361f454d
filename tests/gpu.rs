//! Browser tests: every GPU test runs on BOTH backends and fails (never skips) when the backend
//! it asks for is missing. Run with `cargo test --target wasm32-unknown-unknown --test gpu`.
//!
//! Tolerance: each element of a product of inner dimension k must satisfy
//! |gpu - exact| <= 2 (k + 2) 2^-24 sum_p |a_ip b_pj| (see `reference::dot_error_bound`);
//! integer matrices whose products and partial sums fit in 24 bits must come back exact.
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use texla::backend::{BackendKind, WebGpu};
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
    let marker = match gpu.product_kernel().0 {
        ProductKernel::Fast { .. } if n > 1 => "acc1",
        ProductKernel::Teaching | ProductKernel::Fast { .. } => "MOP",
        ProductKernel::Compute { .. } => "@compute",
        ProductKernel::Registers { .. } => "no workgroup memory and no barrier",
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

/// Asserts `got == want` bit for bit, naming the first difference (not a million values).
fn assert_same(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(k) = (0..got.len()).find(|&k| got[k].to_bits() != want[k].to_bits()) {
        panic!("{what}: element {k} is {}, not {}", got[k], want[k]);
    }
}

fn message(e: JsValue) -> String {
    js_sys::Error::from(e).message().into()
}

/// What a promise of the JS API resolves to, or its error's message.
async fn settle(p: js_sys::Promise) -> Result<JsValue, String> {
    wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map_err(message)
}

/// A GpuMatrix read back, or the error's message.
async fn values(m: &texla::GpuMatrix) -> Result<Vec<f32>, String> {
    settle(m.read())
        .await
        .map(|v| js_sys::Float32Array::from(v).to_vec())
}

on_both_backends! {
    async fn upload_then_read_is_exact(kind) {
        let gpu = device(kind).await;
        // The last two pass 1 MiB: on a hardware adapter WebGPU (un)packs those on the GPU, the
        // others on the CPU; on a software adapter (SwiftShader here) the CPU does all. Both
        // ways are taken here, whatever the adapter.
        let shapes = [(1, 1), (1, 7), (7, 1), (3, 5), (4, 4), (5, 3), (13, 29), (100, 3), (1023, 259), (258, 1021)];
        for on_gpu in [false, true] {
            if let Some(webgpu) = gpu.backend_as::<WebGpu>() {
                webgpu.set_gpu_transfers(on_gpu);
            }
            for (rows, cols) in shapes {
                let data = Rng::new(rows as u32 * 100 + cols as u32).matrix(rows * cols, -1e6, 1e6);
                let m = gpu.upload(&data, rows, cols).unwrap();
                assert_same(&gpu.read(&m).await.unwrap(), &data, &format!("{rows}x{cols}"));
                // The buffers kept from a large transfer go, and the next one makes new ones.
                gpu.release_pooled();
                assert_same(&gpu.read(&m).await.unwrap(), &data, &format!("{rows}x{cols} again"));
            }
        }
        // Through the JS API, where WebGPU hands the page the mapped values without wasm memory
        // and writes large arrays into kept mapped buffers: uploads in a row take a new one, a
        // second, then writeBuffer while both are mapped again; after the reads let the mappings
        // come back, a kept one, then a larger array replaces one.
        // readInto fills an array the page keeps (NaN before each read), small and large, and
        // the same array again in a later round. WebGPU (un)packs on the GPU here, as on a
        // hardware adapter.
        let js = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        if let Some(webgpu) = js.gpu().backend_as::<WebGpu>() {
            webgpu.set_gpu_transfers(true);
        }
        let mut kept = std::collections::HashMap::new();
        for round in [&[(5, 3), (1023, 259), (258, 1021), (600, 500)][..], &[(1023, 259)], &[(1100, 300)]] {
            let mut uploaded = vec![];
            for &(rows, cols) in round {
                let data = Rng::new(7 + rows as u32).matrix(rows * cols, -1e6, 1e6);
                let array: JsValue = js_sys::Float32Array::from(data.as_slice()).into();
                uploaded.push((js.upload(&array, rows as f64, cols as f64, JsValue::UNDEFINED).unwrap(), data, (rows, cols)));
            }
            for (m, data, (rows, cols)) in uploaded {
                let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap().into();
                assert_same(&got.to_vec(), &data, &format!("JS API {rows}x{cols}"));
                let out = kept.entry((rows, cols)).or_insert_with(|| js_sys::Float32Array::new_with_length((rows * cols) as u32));
                out.fill(f32::NAN, 0, out.length());
                let back = settle(m.read_into(out.clone().into())).await.unwrap();
                assert!(js_sys::Object::is(&back, out), "readInto resolves to its array");
                assert_same(&out.to_vec(), &data, &format!("readInto {rows}x{cols}"));
            }
        }
    }

    async fn small_reads_at_once_each_get_their_own_values(kind) {
        // Small read-backs map buffers kept from earlier ones (WebGPU keeps up to 4 MiB of them,
        // each of a power of two bytes): 40 reads at once of matrices of 9 sizes (five of about
        // 0.9 MB, past what is kept), twice, the second round on the buffers of the first in
        // another order.
        let js = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let shapes = [(1, 1), (1, 7), (3, 5), (7, 1), (13, 29), (100, 100), (130, 130), (2, 300), (500, 400)];
        for round in 0..2 {
            let (mut sent, reads) = (vec![], js_sys::Array::new());
            for i in 0..40 {
                let (rows, cols) = shapes[(i + 3 * round) % shapes.len()];
                let data = Rng::new((100 * round + i) as u32).matrix(rows * cols, -1e6, 1e6);
                let array: JsValue = js_sys::Float32Array::from(data.as_slice()).into();
                let m = js.upload(&array, rows as f64, cols as f64, JsValue::UNDEFINED).unwrap();
                reads.push(&m.read());
                sent.push((m, data, (rows, cols)));
            }
            let got: js_sys::Array = settle(js_sys::Promise::all(&reads)).await.unwrap().into();
            for (i, (_, data, (rows, cols))) in sent.iter().enumerate() {
                let values: js_sys::Float32Array = got.get(i as u32).into();
                assert_same(&values.to_vec(), data, &format!("round {round}, read {i}, {rows}x{cols}"));
            }
        }
    }

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
            for chunk in texla::kernels::TILED_CHUNKS.into_iter().filter(|&c| texla::kernels::tiled_workgroup_bytes(c) <= storage) {
                kernels.extend([None, Some(1), Some(4)].map(|slices| ProductKernel::Compute { chunk, slices }));
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
            // The tiled kernel, and the one that keeps its outputs in registers.
            for (name, result) in [("compute", gpu.mul_with(ProductKernel::COMPUTE, &ga, &gb)), ("registers", gpu.mul_with(ProductKernel::REGISTERS, &ga, &gb))] {
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
        for (i, &(m, k)) in [(1, 1), (7, 5), (13, 29), (33, 64), (100, 1000), (257, 3), (300, 257)].iter().enumerate() {
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

    async fn get_and_set_use_one_read_back_and_one_upload(kind) {
        // The thesis's controller: get reads the matrix back once into a CPU copy and serves
        // every later get from it; set changes the copy, and the texture is brought up to date
        // by one upload before the next GPU use; an in-place operation drops the copy.
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let readbacks = |g: &Gpgpu| js_sys::Reflect::get(&g.counts(), &"readbacks".into()).unwrap().as_f64().unwrap();
        let number = |p: js_sys::Promise| async move { wasm_bindgen_futures::JsFuture::from(p).await.map(|v| v.as_f64().unwrap()) };
        let data: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let m = gpu.upload(&js_sys::Float32Array::from(data.as_slice()).into(), 3.0, 4.0, JsValue::UNDEFINED).unwrap();
        let before = readbacks(&gpu);
        assert_eq!(number(m.get(1.0, 2.0)).await.unwrap(), 6.0);
        assert_eq!(number(m.get(2.0, 3.0)).await.unwrap(), 11.0);
        assert_eq!(readbacks(&gpu) - before, 1.0, "one read-back for both gets");
        wasm_bindgen_futures::JsFuture::from(m.set(0.0, 0.0, 42.0)).await.unwrap();
        wasm_bindgen_futures::JsFuture::from(m.set(2.0, 3.0, -1.0)).await.unwrap();
        assert_eq!(number(m.get(0.0, 0.0)).await.unwrap(), 42.0);
        // read and readInto serve the set values from the copy, with no read-back.
        let mut want = data.clone();
        (want[0], want[11]) = (42.0, -1.0);
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), want, "read from the copy");
        let out = js_sys::Float32Array::new_with_length(12);
        wasm_bindgen_futures::JsFuture::from(m.read_into(out.clone().into())).await.unwrap();
        assert_eq!(out.to_vec(), want, "readInto from the copy");
        // readFloat64 gives the same float32 values, widened exactly, from the copy too.
        let wide: js_sys::Float64Array = wasm_bindgen_futures::JsFuture::from(m.read_float64()).await.unwrap().into();
        assert_eq!(wide.to_vec(), want.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), "readFloat64 from the copy");
        assert_eq!(readbacks(&gpu) - before, 1.0, "neither reads back");
        let eye = gpu.identity(4.0, None).unwrap();
        let product = gpu.matmul(&m, &eye, JsValue::UNDEFINED).unwrap();
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(product.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), want, "the GPU sees both sets");
        assert_eq!(readbacks(&gpu) - before, 2.0, "and only the product was read back");
        m.scale_mut(2.0).unwrap();
        assert_eq!(number(m.get(0.0, 0.0)).await.unwrap(), 84.0, "an in-place operation drops the copy");
        assert_eq!(readbacks(&gpu) - before, 3.0);
        let message = |e: JsValue| String::from(js_sys::Error::from(e).message());
        assert!(message(number(m.get(3.0, 0.0)).await.unwrap_err()).contains("(3, 0) is not an element of this 3x4 matrix"));
        assert!(message(number(m.get(0.5, 0.0)).await.unwrap_err()).contains("not an element"));
        m.release();
        assert!(message(number(m.get(0.0, 0.0)).await.unwrap_err()).contains("freed"));
    }

    async fn a_memory_budget_moves_the_least_recently_used_matrices_to_the_cpu(kind) {
        // Six 64 x 64 matrices (16 KiB of texture each) under a budget of three: after
        // finish() the live bytes fit, the oldest went to CPU copies, and every matrix still
        // reads and multiplies exactly (an evicted one comes back by one upload).
        let each = 64.0 * 16.0 * 16.0;
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"memoryBudget".into(), &(3.0 * each).into()).unwrap();
        let gpu = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        let stat = |g: &Gpgpu, key: &str| js_sys::Reflect::get(&g.memory(), &key.into()).unwrap().as_f64().unwrap();
        let data = |i: usize| -> Vec<f32> { (0..64 * 64).map(|v| (v * 7 + i * 1000) as f32).collect() };
        let ms: Vec<_> = (0..6).map(|i| gpu.upload(&js_sys::Float32Array::from(data(i).as_slice()).into(), 64.0, 64.0, JsValue::UNDEFINED).unwrap()).collect();
        wasm_bindgen_futures::JsFuture::from(gpu.finish()).await.unwrap();
        assert!(stat(&gpu, "liveBytes") <= 3.0 * each, "live {} over the budget", stat(&gpu, "liveBytes"));
        assert!(stat(&gpu, "evictions") >= 3.0, "evictions {}", stat(&gpu, "evictions"));
        assert_eq!(stat(&gpu, "budget"), 3.0 * each);
        let eye = gpu.identity(64.0, None).unwrap();
        for (i, m) in ms.iter().enumerate() {
            let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap().into();
            assert_eq!(got.to_vec(), data(i), "matrix {i} reads back");
            let p = gpu.matmul(m, &eye, JsValue::UNDEFINED).unwrap();
            let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(p.read()).await.unwrap().into();
            assert_eq!(got.to_vec(), data(i), "matrix {i} multiplies");
            p.release();
        }
        wasm_bindgen_futures::JsFuture::from(gpu.finish()).await.unwrap();
        assert!(stat(&gpu, "liveBytes") <= 3.0 * each, "live {} over the budget at the end", stat(&gpu, "liveBytes"));
        let bad = js_sys::Object::new();
        js_sys::Reflect::set(&bad, &"memoryBudget".into(), &(-5.0).into()).unwrap();
        let e = Gpgpu::create(Some(kind.name().into()), bad.into()).await.err().unwrap();
        assert!(message(e).contains("memoryBudget must be a number of bytes"));
    }

    async fn a_lost_gpu_says_so_and_restore_brings_back_what_it_kept(kind) {
        // After the context (WebGL2) or device (WebGPU) is lost, every operation says so in
        // plain words instead of a framebuffer status or a failed mapping; restore() brings
        // the same Gpgpu back with every matrix that had a copy on the CPU.
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let data: JsValue = js_sys::Float32Array::from(&[1.0f32, 2.0, 3.0, 4.0][..]).into();
        let uploaded = gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        let read_back = gpu.square(&uploaded, JsValue::UNDEFINED).unwrap();
        assert_eq!(values(&read_back).await.unwrap(), [7.0, 10.0, 15.0, 22.0]);
        let never_read = gpu.matmul(&uploaded, &uploaded, JsValue::UNDEFINED).unwrap();
        let set = gpu.fill(2.0, 2.0, 0.0).unwrap();
        settle(set.set(0.0, 1.0, 5.0)).await.unwrap();
        let changed = gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        changed.scale_mut(2.0).unwrap();
        gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap().release();
        let wall = gpu.wall(None, None).unwrap();
        settle(wall.step()).await.unwrap();
        let counts = |r: JsValue| ["restored", "lost"].map(|k| js_sys::Reflect::get(&r, &k.into()).unwrap().as_f64().unwrap());
        assert_eq!(counts(settle(gpu.restore()).await.unwrap()), [0.0, 0.0], "nothing to restore while it works");

        gpu.lose_context();
        let said = |e: String| e.contains("the GPU went away") && e.contains("restore()");
        assert!(said(message(gpu.matmul(&uploaded, &uploaded, JsValue::UNDEFINED).err().unwrap())), "a product");
        assert!(said(message(gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).err().unwrap())), "an upload");
        assert!(said(values(&uploaded).await.unwrap_err()), "a read-back");
        assert!(said(settle(gpu.finish()).await.unwrap_err()), "finish");
        assert!(said(settle(wall.step()).await.unwrap_err()), "the wall's frame");
        let spd: JsValue = js_sys::Float32Array::from(&[4.0f32, 1.0, 1.0, 3.0][..]).into();
        let rhs: JsValue = js_sys::Float32Array::from(&[1.0f32, 2.0][..]).into();
        assert!(gpu.upload(&spd, 2.0, 2.0, JsValue::UNDEFINED).is_err());
        assert!(gpu.lost().is_some());

        let restored = counts(settle(gpu.restore()).await.unwrap());
        assert_eq!(restored, [3.0, 2.0], "uploaded, read back and set come back; the others are lost");
        assert_eq!(gpu.lost(), None);
        assert_eq!(values(&uploaded).await.unwrap(), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(values(&read_back).await.unwrap(), [7.0, 10.0, 15.0, 22.0]);
        assert_eq!(values(&set).await.unwrap(), [0.0, 5.0, 0.0, 0.0]);
        let again = gpu.matmul(&uploaded, &read_back, JsValue::UNDEFINED).unwrap();
        assert_eq!(values(&again).await.unwrap(), [37.0, 54.0, 81.0, 118.0], "kernels run again");
        for m in [&never_read, &changed] {
            assert!(values(m).await.unwrap_err().contains("lost with the GPU context"));
            assert!(message(gpu.square(m, JsValue::UNDEFINED).err().unwrap()).contains("lost with the GPU context"));
        }
        // A solver and the wall run again; memory counts only the new GPU's textures.
        let (a, b) = (gpu.upload(&spd, 2.0, 2.0, JsValue::UNDEFINED).unwrap(), gpu.upload(&rhs, 2.0, 1.0, JsValue::UNDEFINED).unwrap());
        let solved = settle(gpu.cg(&a, &b, JsValue::UNDEFINED)).await.unwrap();
        assert_eq!(js_sys::Reflect::get(&solved, &"converged".into()).unwrap(), JsValue::TRUE, "cg runs again");
        let stats = settle(wall.step()).await.unwrap();
        assert_eq!(js_sys::Reflect::get(&stats, &"frame".into()).unwrap().as_f64(), Some(2.0));
        wall.draw().unwrap();
        let live = js_sys::Reflect::get(&gpu.memory(), &"liveBytes".into()).unwrap().as_f64().unwrap();
        assert!(live > 0.0 && live <= 16.0 * 20.0, "the lost GPU's textures left the count: {live}");

        // Without copies an upload is lost too, and a second loss is restored the same way.
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"keepCopies".into(), &false.into()).unwrap();
        let bare = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        let m = bare.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        bare.lose_context();
        assert_eq!(counts(settle(bare.restore()).await.unwrap()), [0.0, 1.0]);
        assert!(values(&m).await.unwrap_err().contains("lost with the GPU context"));
        gpu.lose_context();
        // Uploaded, read back, set, again (read), and cg's a and b (uploaded).
        assert_eq!(counts(settle(gpu.restore()).await.unwrap())[0], 6.0);
        assert_eq!(values(&again).await.unwrap(), [37.0, 54.0, 81.0, 118.0]);
    }

    async fn large_copies_are_reused_and_keep_their_own_values(kind) {
        // keepCopies: "copy" copies what is uploaded and read back. A large copy that a freed
        // or changed matrix lets go takes the next copy of its length, and must then hold that
        // matrix's values: restore() after a loss brings each back from its own.
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"keepCopies".into(), &"copy".into()).unwrap();
        let gpu = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        gpu.release_pooled();
        let spare = |g: &Gpgpu| js_sys::Reflect::get(&g.memory(), &"spareCopyBytes".into()).unwrap().as_f64().unwrap();
        let n = 512; // 1 MiB, the smallest copy kept
        let bytes = (4 * n * n) as f64;
        let (first, second) = (Rng::new(1).matrix(n * n, -1.0, 1.0), Rng::new(2).matrix(n * n, -1.0, 1.0));
        let js = |d: &[f32]| -> JsValue { js_sys::Float32Array::from(d).into() };
        let upload = |d: &[f32]| gpu.upload(&js(d), n as f64, n as f64, JsValue::UNDEFINED).unwrap();
        upload(&first).release();
        assert_eq!(spare(&gpu), bytes, "a freed matrix's copy is kept");
        let b = upload(&second);
        assert_eq!(spare(&gpu), 0.0, "and taken by the next copy of its length");
        let twice = gpu.scale(&b, 2.0).unwrap();
        let out = js_sys::Float32Array::new_with_length((n * n) as u32);
        settle(twice.read_into(out.clone().into())).await.unwrap();
        twice.scale_mut(0.5).unwrap();
        assert_eq!(spare(&gpu), bytes, "a changed matrix lets its read-back copy go");
        let c = upload(&first);
        assert_eq!(spare(&gpu), 0.0);
        gpu.lose_context();
        settle(gpu.restore()).await.unwrap();
        assert_same(&values(&b).await.unwrap(), &second, "b from its copy");
        assert_same(&values(&c).await.unwrap(), &first, "c from the copy twice let go");
        c.release();
        assert_eq!(spare(&gpu), bytes);
        gpu.release_pooled();
        assert_eq!(spare(&gpu), 0.0, "releasePooled drops the spare copies");
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
        assert!(e.contains("matmul has no kernel \"tiled\"; its kernels are \"auto\", \"teaching\", \"fast\", \"compute\", \"registers\", \"passes\""), "{e}");
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
