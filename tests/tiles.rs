//! Browser tests of matrices larger than one texture: grids of tiles (`src/gpu/tiles.rs`), on
//! both backends. Most use a tile limit of 64 texels, so that grids stay small and fast; one
//! uses real shapes past the device's largest texture.
//!
//! Tolerance: each element of a product of inner dimension k must satisfy
//! |gpu - exact| <= 2 (k + 2) 2^-24 sum_p |a_ip b_pj| (`reference::dot_error_bound`); a block
//! sum over tiles adds one rounding per tile, well inside it. Uploads, reads, copies,
//! transposes and element-wise sums are exact (float32 against float32).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, error, keep_going, upload};
use texla::backend::BackendKind;
use texla::gpu::{ops, Gpu, MatVecKernel, ProductKernel, Transpose};
use texla::kernels::{Program, MATMUL};
use texla::matrix::Matrix;
use texla::reference::{dot_error_bound, Rng};
use texla::{problems, solver};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A GPU whose textures are at most 64 texels a side: 256 rows and 64 columns.
async fn small_tiles(kind: BackendKind) -> Box<Gpu> {
    let gpu = device(kind).await;
    gpu.set_tile_limit(64).unwrap();
    gpu
}

/// Every element of `got` (m x n) within the float32 bound of A B (or A^T B etc.: `at(i, p)`
/// and `bt(p, j)` give the factors' elements).
fn within_bound(
    what: &str,
    got: &[f32],
    (m, k, n): (usize, usize, usize),
    at: impl Fn(usize, usize) -> f64,
    bt: impl Fn(usize, usize) -> f64,
) {
    assert_eq!(got.len(), m * n, "{what}: length");
    for i in 0..m {
        for j in 0..n {
            let (mut exact, mut abs) = (0.0, 0.0);
            for p in 0..k {
                let t = at(i, p) * bt(p, j);
                exact += t;
                abs += t.abs();
            }
            let e = (f64::from(got[i * n + j]) - exact).abs();
            assert!(
                e <= dot_error_bound(k, abs),
                "{what}: ({i}, {j}) off by {e:e}, bound {:e}",
                dot_error_bound(k, abs)
            );
        }
    }
}

on_both_backends! {
    async fn grids_upload_read_and_compute_element_wise(kind) {
        let gpu = small_tiles(kind).await;
        let (m, n) = (300, 150);
        let mut rng = Rng::new(1);
        let (a, b) = (rng.matrix(m * n, -1.0, 1.0), rng.matrix(m * n, -1.0, 1.0));
        let (ga, gb) = (gpu.upload(&a, m, n).unwrap(), gpu.upload(&b, m, n).unwrap());
        // 300 rows in tiles of 64 and 150 columns in tiles of 64: 5 x 3 tiles.
        assert!(Gpu::is_tiled(&ga));
        assert_eq!(Gpu::tile_count(&ga), 15);
        assert_eq!(gpu.read(&ga).await.unwrap(), a, "upload then read is exact");
        let sum = gpu.map(&ops::add(), &[&ga, &gb]).unwrap();
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(gpu.read(&sum).await.unwrap(), want, "element-wise, tile by tile");
        let (twice, diff) = gpu.map2(&ops::scale(2.0), &ops::sub(), &[&ga, &gb]).unwrap();
        assert_eq!(gpu.read(&twice).await.unwrap(), a.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
        assert_eq!(gpu.read(&diff).await.unwrap(), a.iter().zip(&b).map(|(x, y)| x - y).collect::<Vec<_>>());
        let t = gpu.transpose(&ga).unwrap();
        let want: Vec<f32> = (0..n * m).map(|k| a[(k % m) * n + k / m]).collect();
        assert_eq!(gpu.read(&t).await.unwrap(), want, "transpose: tile (i, j) from tile (j, i)");
        // Reductions: float64 over the tiles' float32 results.
        let dot64: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
        let abs: f64 = a.iter().zip(&b).map(|(x, y)| (f64::from(*x) * f64::from(*y)).abs()).sum();
        let dot = f64::from(gpu.dot(&ga, &gb).await.unwrap());
        assert!((dot - dot64).abs() <= dot_error_bound(m * n, abs), "dot {dot} against {dot64}");
        let max = a.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        assert_eq!(gpu.max_abs(&ga).await.unwrap(), max);
        let sum64: f64 = a.iter().map(|x| f64::from(*x)).sum();
        let total = f64::from(gpu.sum_all(&ga).await.unwrap());
        assert!((total - sum64).abs() <= dot_error_bound(m * n, a.iter().map(|x| f64::from(x.abs())).sum()));
        // Made on the GPU: fill, the identity and a diagonal.
        let eye = gpu.identity(m, n).unwrap();
        let want: Vec<f32> = (0..m * n).map(|k| if k / n == k % n { 1.0 } else { 0.0 }).collect();
        assert_eq!(gpu.read(&eye).await.unwrap(), want);
        let sq = gpu.upload(&a[..n * n], n, n).unwrap();
        let d = gpu.diagonal(&sq).unwrap();
        assert_eq!(gpu.read(&d).await.unwrap(), (0..n).map(|i| a[i * n + i]).collect::<Vec<_>>());
        assert_eq!(gpu.read(&gpu.fill(m, n, 3.5).unwrap()).await.unwrap(), vec![3.5; m * n]);
        // A kernel that does not take grids says so.
        let p = Program::new(MATMUL, vec![ga.layout(), gb.layout()], sq.layout());
        let e = gpu.run(p, &[&ga, &gb]).unwrap_err().to_string();
        assert!(e.contains("larger than one texture") && e.contains("grid of 15 textures"), "{e}");
    }

    async fn products_across_tiles_are_within_the_float32_bound(kind) {
        let gpu = small_tiles(kind).await;
        let (m, k, n) = (150, 200, 170);
        let mut rng = Rng::new(2);
        let (a, b) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, -1.0, 1.0));
        let (ga, gb) = (gpu.upload(&a, m, k).unwrap(), gpu.upload(&b, k, n).unwrap());
        let af = |i: usize, p: usize| f64::from(a[i * k + p]);
        let bf = |p: usize, j: usize| f64::from(b[p * n + j]);
        let mut paths: Vec<(&str, Matrix)> = vec![
            ("mul", gpu.mul(&ga, &gb).unwrap()),
            ("mul_teaching", gpu.mul_with(ProductKernel::Teaching, &ga, &gb).unwrap()),
            ("mul_fast", gpu.mul_with(ProductKernel::FAST, &ga, &gb).unwrap()),
            ("mul_passes", gpu.mul_with(ProductKernel::Passes { per_pass: 50 }, &ga, &gb).unwrap()),
        ];
        if kind == BackendKind::WebGpu {
            paths.push(("mul_compute", gpu.mul_with(ProductKernel::COMPUTE, &ga, &gb).unwrap()));
            paths.push(("mul_registers", gpu.mul_with(ProductKernel::REGISTERS, &ga, &gb).unwrap()));
        }
        for (what, c) in paths {
            assert!(Gpu::is_tiled(&c), "{what}: 170 columns are 3 tiles");
            within_bound(what, &gpu.read(&c).await.unwrap(), (m, k, n), af, bf);
        }
        // A^T B and A B^T with grids on both sides (A^T B: a is k x m).
        let at = gpu.transpose(&ga).unwrap();
        let c = gpu.mul_transposed(ProductKernel::Auto, &at, &gb, Transpose::A).unwrap();
        within_bound("tr_mul", &gpu.read(&c).await.unwrap(), (m, k, n), af, bf);
        let bt = gpu.transpose(&gb).unwrap();
        let c = gpu.mul_transposed(ProductKernel::Auto, &ga, &bt, Transpose::B).unwrap();
        within_bound("mul_tr", &gpu.read(&c).await.unwrap(), (m, k, n), af, bf);
        // A x: 300 x 200 by 200 x 1 gives 300 rows, past one 64-texel tile (a grid); 200 x 300
        // by 300 x 1 gives 200 rows, which fit one texture (the blocks assembled into it).
        for (rows, cols) in [(300, 200), (200, 300)] {
            let a = rng.matrix(rows * cols, -1.0, 1.0);
            let x = rng.matrix(cols, -1.0, 1.0);
            let (ga, gx) = (gpu.upload(&a, rows, cols).unwrap(), gpu.upload(&x, cols, 1).unwrap());
            let y = gpu.mul_vec(&ga, &gx).unwrap();
            assert_eq!(Gpu::is_tiled(&y), rows == 300);
            within_bound("mul_vec", &gpu.read(&y).await.unwrap(), (rows, cols, 1), |i, p| f64::from(a[i * cols + p]), |p, _| f64::from(x[p]));
            let y = gpu.mul_vec_with(MatVecKernel::Blocked, &ga, &gx).unwrap();
            within_bound("mul_vec_blocked", &gpu.read(&y).await.unwrap(), (rows, cols, 1), |i, p| f64::from(a[i * cols + p]), |p, _| f64::from(x[p]));
        }
        // Tall single textures whose transpose or A B^T does not fit one: grids.
        let tall = rng.matrix(200 * 10, -1.0, 1.0);
        let gt = gpu.upload(&tall, 200, 10).unwrap();
        assert!(!Gpu::is_tiled(&gt));
        let t = gpu.transpose(&gt).unwrap();
        assert!(Gpu::is_tiled(&t));
        assert_eq!(gpu.read(&t).await.unwrap(), (0..2000).map(|k| tall[(k % 200) * 10 + k / 200]).collect::<Vec<_>>());
        let c = gpu.mul_transposed(ProductKernel::Auto, &gt, &gt, Transpose::B).unwrap();
        within_bound("tall A A^T", &gpu.read(&c).await.unwrap(), (200, 10, 200), |i, p| f64::from(tall[i * 10 + p]), |p, j| f64::from(tall[j * 10 + p]));
        // One texture larger than a tile meets a grid: 250 x 64 fits (63 texels high), and is
        // cut into four tiles to multiply the 64 x 100 grid.
        let (a, b) = (rng.matrix(250 * 64, -1.0, 1.0), rng.matrix(64 * 100, -1.0, 1.0));
        let (ga, gb) = (gpu.upload(&a, 250, 64).unwrap(), gpu.upload(&b, 64, 100).unwrap());
        assert!(!Gpu::is_tiled(&ga) && Gpu::is_tiled(&gb));
        let c = gpu.mul(&ga, &gb).unwrap();
        within_bound("cut and multiplied", &gpu.read(&c).await.unwrap(), (250, 64, 100), |i, p| f64::from(a[i * 64 + p]), |p, j| f64::from(b[p * 100 + j]));
    }

    async fn solvers_run_across_tiles(kind) {
        let gpu = small_tiles(kind).await;
        // 300 unknowns: A is 5 x 5 tiles, b and x 5 tiles each.
        let p = problems::random_spd(300, 3);
        let (a, b) = upload(&gpu, &p);
        assert!(Gpu::is_tiled(&a) && Gpu::is_tiled(&b));
        let s = solver::cg(&gpu, &a, &b, None, solver::CgOptions { tol: 1e-5, ..Default::default() }, &mut keep_going).await.unwrap();
        assert!(s.converged, "CG converged in {} iterations", s.iterations);
        let e = error(&gpu, &s.x, &p).await;
        assert!(e < 1e-3, "CG error {e:e}");
        let p = problems::jacobi_system(300, 1.4, 4);
        let (a, b) = upload(&gpu, &p);
        let s = solver::jacobi(&gpu, &a, &b, solver::JacobiOptions { tol: 1e-5, ..Default::default() }, &mut keep_going).await.unwrap();
        assert!(s.converged, "Jacobi converged in {} iterations", s.iterations);
        let e = error(&gpu, &s.x, &p).await;
        assert!(e < 1e-3, "Jacobi error {e:e}");
        // The 2D Poisson stencil across tiles: a 150 x 90 grid is 3 x 2 tiles, each reading
        // the edges of the tiles beside it; every element against float64 (5 terms of at most
        // 4 in size: 8 roundings of 2^-24 bound it).
        let (m, n) = (150, 90);
        let v = Rng::new(9).matrix(m * n, -1.0, 1.0);
        let x = gpu.upload(&v, m, n).unwrap();
        assert!(Gpu::is_tiled(&x));
        let got = gpu.read(&gpu.laplacian(&x).unwrap()).await.unwrap();
        let at = |r: usize, c: usize| f64::from(v[r * n + c]);
        for (i, g) in got.iter().enumerate() {
            let (r, c) = (i / n, i % n);
            let mut want = 4.0 * at(r, c);
            if c > 0 { want -= at(r, c - 1) }
            if c + 1 < n { want -= at(r, c + 1) }
            if r > 0 { want -= at(r - 1, c) }
            if r + 1 < m { want -= at(r + 1, c) }
            assert!((f64::from(*g) - want).abs() <= 8.0 * 8.0 * 2f64.powi(-24), "({r}, {c}): {g} against {want}");
        }
        // CG on a 100 x 100 Poisson grid of 2 x 2 tiles.
        let p = problems::poisson_2d_grid(100);
        let b = gpu.upload(&p.b, 100, 100).unwrap();
        assert!(Gpu::is_tiled(&b));
        let options = solver::CgOptions { tol: 1e-4, max_iter: 2000, fused: true };
        let s = solver::cg_poisson_2d(&gpu, &b, None, options, &mut keep_going).await.unwrap();
        assert!(s.converged, "{} iterations, residual {:?}", s.iterations, s.residuals.last());
        let e = error(&gpu, &s.x, &p).await;
        assert!(e <= 1e-2, "CG on the tiled grid: error {e:e} after {} iterations", s.iterations);
    }

    async fn real_shapes_past_the_largest_texture_work(kind) {
        // No tile limit: the device's own (8192 here). A 3 x 16421 matrix (16421 columns: three
        // tiles) times a 16421-vector (one texture, cut into three for the product); a 32811 x 3
        // matrix (8203 texels high: two tiles) times a 3-vector; a 40,000-vector.
        let gpu = device(kind).await;
        let max = gpu.capabilities().max_texture_size as usize;
        let mut rng = Rng::new(5);
        let n = 2 * max + 37;
        let (a, x) = (rng.matrix(3 * n, -1.0, 1.0), rng.matrix(n, -1.0, 1.0));
        let (ga, gx) = (gpu.upload(&a, 3, n).unwrap(), gpu.upload(&x, n, 1).unwrap());
        assert!(Gpu::is_tiled(&ga));
        let y = gpu.mul_vec(&ga, &gx).unwrap();
        within_bound("3 x n times n", &gpu.read(&y).await.unwrap(), (3, n, 1), |i, p| f64::from(a[i * n + p]), |p, _| f64::from(x[p]));
        let rows = 4 * max + 43;
        let (a, x) = (rng.matrix(rows * 3, -1.0, 1.0), rng.matrix(3, -1.0, 1.0));
        let ga = gpu.upload(&a, rows, 3).unwrap();
        assert!(Gpu::is_tiled(&ga));
        let y = gpu.mul_vec(&ga, &gpu.upload(&x, 3, 1).unwrap()).unwrap();
        within_bound("rows x 3 times 3", &gpu.read(&y).await.unwrap(), (rows, 3, 1), |i, p| f64::from(a[i * 3 + p]), |p, _| f64::from(x[p]));
        let v = rng.matrix(40_000, -1.0, 1.0);
        let gv = gpu.upload(&v, 40_000, 1).unwrap();
        assert_eq!(gpu.read(&gv).await.unwrap(), v);
        let dot64: f64 = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum();
        let dot = f64::from(gpu.dot(&gv, &gv).await.unwrap());
        assert!((dot - dot64).abs() <= dot_error_bound(40_000, dot64));
    }

    async fn the_js_api_takes_a_tile_limit(kind) {
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"tileLimit".into(), &64.into()).unwrap();
        let gpu = texla::Gpgpu::create(Some(kind.name().into()), options.clone().into()).await.unwrap();
        let caps = gpu.capabilities();
        assert_eq!(js_sys::Reflect::get(&caps, &"tileLimit".into()).unwrap().as_f64(), Some(64.0));
        let data: Vec<f32> = (0..100 * 100).map(|v| (v % 7) as f32).collect();
        let js: JsValue = js_sys::Float32Array::from(data.as_slice()).into();
        let m = gpu.upload(&js, 100.0, 100.0, JsValue::UNDEFINED).unwrap();
        let c = gpu.matmul(&m, &m, JsValue::UNDEFINED).unwrap();
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(c.read()).await.unwrap().into();
        // Integers whose products and sums fit in 24 bits: exact.
        let want: Vec<f32> = (0..100 * 100).map(|e| (0..100).map(|p| data[(e / 100) * 100 + p] * data[p * 100 + e % 100]).sum()).collect();
        assert_eq!(got.to_vec(), want);
        js_sys::Reflect::set(&options, &"tileLimit".into(), &66.into()).unwrap();
        let e = texla::Gpgpu::create(Some(kind.name().into()), options.into()).await.err().unwrap();
        assert!(js_sys::Error::from(e).message().as_string().unwrap().contains("multiple of 4"));
    }
}
