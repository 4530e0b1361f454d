//! Matrix products at each `--sizes` n: TFLOPS of every path (fragment kernels, registers,
//! compute block shapes) under each level of run-time checks, checked against float64.

use texla::error::Result;
use texla::gpu::{Gpu, ProductKernel};
use texla::matrix::Matrix;
use texla::reference::{dot_error_bound, Rng};

use crate::common::{block_on, check_levels, time, webgpu};
use crate::options::Options;

/// Worst |gpu - exact| / bound over `samples` random elements of C = A B (row-major f32 data),
/// with the float64 reference computed for those elements only.
pub fn check_product(
    c: &[f32],
    a: &[f32],
    b: &[f32],
    (m, k, n): (usize, usize, usize),
    samples: usize,
    seed: u32,
) -> f64 {
    let mut rng = Rng::new(seed);
    let mut worst = 0.0f64;
    for s in 0..samples {
        // The corners first, then random elements.
        let (i, j) = match s {
            0 => (0, 0),
            1 => (m - 1, n - 1),
            2 => (0, n - 1),
            3 => (m - 1, 0),
            _ => (
                (rng.next_f64() * m as f64) as usize,
                (rng.next_f64() * n as f64) as usize,
            ),
        };
        let (mut exact, mut abs) = (0.0f64, 0.0f64);
        for p in 0..k {
            let t = f64::from(a[i * k + p]) * f64::from(b[p * n + j]);
            exact += t;
            abs += t.abs();
        }
        let err = (f64::from(c[i * n + j]) - exact).abs();
        let ratio = if err.is_nan() {
            f64::INFINITY
        } else {
            err / dot_error_bound(k, abs).max(f64::MIN_POSITIVE)
        };
        worst = worst.max(ratio);
    }
    worst
}

pub fn tflops(n: usize, seconds: f64) -> f64 {
    2.0 * (n as f64).powi(3) / seconds / 1e12
}

/// One row of the products table: a path's name, and its measurements per size.
struct Row {
    name: String,
    tflops: Vec<Option<f64>>,
    worst: f64,
}

/// A way to compute A B on the device.
type Product = Box<dyn Fn(&Gpu, &Matrix, &Matrix) -> Result<Matrix>>;

pub fn products(gpu: &Gpu, o: &Options) -> Result<()> {
    let mut paths: Vec<(String, Product)> = vec![
        (
            "fragment, teaching (ProductKernel::Teaching)".into(),
            Box::new(|g, a, b| g.mul_with(ProductKernel::Teaching, a, b)),
        ),
        (
            "fragment, fast, 8 targets".into(),
            Box::new(|g, a, b| g.mul_with(ProductKernel::Fast { targets: 8 }, a, b)),
        ),
        (
            "fragment, fast, 4 targets".into(),
            Box::new(|g, a, b| g.mul_with(ProductKernel::Fast { targets: 4 }, a, b)),
        ),
    ];
    if !o.quick {
        paths.push((
            "fragment, fast, 2 targets".into(),
            Box::new(|g, a, b| g.mul_with(ProductKernel::Fast { targets: 2 }, a, b)),
        ));
    }
    for (rows, cols) in [(4, 8), (2, 16), (4, 16), (4, 32), (8, 8)] {
        paths.push((
            format!("compute, {rows} texel rows x {cols} columns per invocation, registers only"),
            Box::new(move |g, a, b| g.mul_with(ProductKernel::Registers { rows, cols }, a, b)),
        ));
    }
    let storage = gpu.capabilities().max_workgroup_storage;
    for bk in texla::kernels::TILED_CHUNKS {
        if texla::kernels::tiled_workgroup_bytes(bk, 128) <= storage && (bk == 8 || !o.quick) {
            paths.push((
                format!("compute, 128x128 blocks, 8x8 per thread, k chunk {bk}, k split by size"),
                Box::new(move |g, a, b| {
                    let kernel = ProductKernel::Compute {
                        chunk: bk,
                        slices: None,
                        width: Some(128),
                    };
                    g.mul_with(kernel, a, b)
                }),
            ));
        }
    }
    // The split of k that the compute kernel picks by size, against each fixed split.
    for slices in [1, 2, 4] {
        paths.push((
            format!("compute, k chunk 8, k split in {slices}"),
            Box::new(move |g, a, b| {
                let kernel = ProductKernel::Compute {
                    chunk: 8,
                    slices: Some(slices),
                    width: Some(128),
                };
                g.mul_with(kernel, a, b)
            }),
        ));
    }
    let mut levels = check_levels();
    if let Some(only) = &o.paths {
        paths.retain(|(name, _)| name.contains(only.as_str()));
        levels.retain(|(level, _)| *level == "no run-time checks");
    }
    let mut rows: Vec<Row> = Vec::new();
    for (level, checks) in levels {
        webgpu(gpu).set_runtime_checks(checks);
        for (name, op) in &paths {
            let mut row = Row {
                name: format!("{name} [{level}]"),
                tflops: vec![],
                worst: 0.0,
            };
            let mut last_seconds = 0.0f64;
            for &n in &o.sizes {
                // Skip what would take more than 2 s a run (8x the smaller size's time).
                if last_seconds * 8.0 > 2.0 {
                    println!(
                        "n={n:5} {:72} skipped (about {:.1} s a run)",
                        row.name,
                        last_seconds * 8.0
                    );
                    row.tflops.push(None);
                    continue;
                }
                let mut rng = Rng::new(n as u32);
                let a = rng.matrix(n * n, -1.0, 1.0);
                let b = rng.matrix(n * n, -1.0, 1.0);
                let (ga, gb) = (gpu.upload(&a, n, n)?, gpu.upload(&b, n, n)?);
                match time(gpu, o.batches, 50, || op(gpu, &ga, &gb)) {
                    Ok((seconds, c)) => {
                        let data = block_on(gpu.read(&c))?;
                        let worst = check_product(&data, &a, &b, (n, n, n), 256, 7 * n as u32);
                        row.worst = row.worst.max(worst);
                        let flag = if worst <= 1.0 { "ok" } else { "WRONG" };
                        println!(
                            "n={n:5} {:72} {:9.3} ms {:6.2} TFLOPS  check {flag} (worst {worst:.1e} of bound)",
                            row.name,
                            seconds * 1e3,
                            tflops(n, seconds)
                        );
                        row.tflops.push((worst <= 1.0).then(|| tflops(n, seconds)));
                        last_seconds = seconds;
                    }
                    Err(e) => {
                        println!("n={n:5} {:72} failed: {e}", row.name);
                        row.tflops.push(None);
                    }
                }
                gpu.release_pooled();
            }
            rows.push(row);
        }
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    println!(
        "\nTFLOPS of C = A B (n x n, FP32), median of {} batches:",
        o.batches
    );
    print!("{:84}", "path [wgpu run-time checks in the shaders]");
    for n in &o.sizes {
        print!(" {:>8}", format!("n={n}"));
    }
    println!();
    for row in &rows {
        print!("{:84}", row.name);
        for t in &row.tflops {
            match t {
                Some(v) => print!(" {v:8.2}"),
                None => print!(" {:>8}", "-"),
            }
        }
        println!(
            "{}",
            if row.worst <= 1.0 {
                ""
            } else {
                "  (WRONG RESULTS)"
            }
        );
    }
    Ok(())
}
