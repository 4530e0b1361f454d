//! `--matvec-shapes`: the compute-path A x (issue 17's target: 70% of the H100's 3.35 TB/s at
//! n = 8192) in the shapes of [`SHAPES`] (`Gpu::mul_vec_shaped`) beside the product's own
//! kernel (`Gpu::mul_vec_compute`), at the orders of `--mv-shape-sizes` (4096, 8192), with wgpu's
//! run-time checks and without, in two rounds interleaved so that the GPU's clock drifts over
//! all of them alike. Each run is checked against float64 on every row. The shapes' WGSL goes
//! into `--out` (`matvec_*.wgsl` and `matvec-shapes.json`) for `bench/dawn/matvec-shapes.mjs`,
//! which runs the same kernels through Dawn.

use std::fmt::Write as _;

use texla::error::{Error, Result};
use texla::gpu::Gpu;
use texla::kernels::{matvec_shaped, MatvecShape, MATVEC_TILED};
use texla::matrix::Matrix;
use texla::reference::{dot_error_bound, Rng};

use super::{block_on, check_levels, time, webgpu, Options};

/// (lanes, threads, texel rows per thread, quads per trip): the product's shape with the
/// two-step reduction, more threads (lanes 128 and 256), more loads in flight (2 quads a trip,
/// 4 texel rows), and one texel row a thread.
pub const SHAPES: [(usize, usize, usize, usize); 12] = [
    (64, 4, 2, 1),
    (64, 4, 2, 2),
    (64, 4, 4, 1),
    (64, 2, 4, 2),
    (128, 2, 2, 1),
    (128, 2, 2, 2),
    (128, 1, 2, 2),
    (128, 2, 4, 1),
    (128, 2, 1, 2),
    (256, 1, 2, 1),
    (256, 1, 2, 2),
    (256, 1, 4, 1),
];

fn shape((lanes, threads, rows, quads): (usize, usize, usize, usize)) -> MatvecShape {
    MatvecShape {
        lanes,
        threads,
        rows,
        quads,
    }
}

/// Writes the WGSL of the product's kernel and of every shape into `dir`, with a manifest
/// (name, file, texel rows per workgroup) for the Dawn benchmark.
fn write_sources(dir: &str) -> Result<()> {
    let io = |e: std::io::Error| Error::Gpu(format!("writing the shapes' WGSL into {dir}: {e}"));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut kernels = vec![("matvec_tiled".to_string(), MATVEC_TILED)];
    kernels.extend(SHAPES.map(|s| {
        let k = matvec_shaped(shape(s));
        (k.name.to_string(), k)
    }));
    let mut manifest = String::from("[\n");
    for (i, (name, kernel)) in kernels.iter().enumerate() {
        let file = format!("{name}.wgsl");
        std::fs::write(format!("{dir}/{file}"), kernel.wgsl_source()).map_err(io)?;
        let rows = kernel.compute.map_or(1, |c| c.per_group.1);
        let comma = if i + 1 < kernels.len() { "," } else { "" };
        let _ = writeln!(
            manifest,
            "  {{\"name\": \"{name}\", \"file\": \"{file}\", \"rowsPerGroup\": {rows}}}{comma}"
        );
    }
    manifest.push_str("]\n");
    std::fs::write(format!("{dir}/matvec-shapes.json"), manifest).map_err(io)
}

/// Worst |y - y64| / bound over all rows of y = A x.
fn worst_row(got: &[f32], a: &[f32], x: &[f32], n: usize) -> f64 {
    (0..n)
        .map(|i| {
            let (mut e, mut s) = (0.0f64, 0.0f64);
            for (aij, xj) in a[i * n..(i + 1) * n].iter().zip(x) {
                let t = f64::from(*aij) * f64::from(*xj);
                e += t;
                s += t.abs();
            }
            let r = (f64::from(got[i]) - e).abs() / dot_error_bound(n, s);
            if r.is_nan() {
                f64::INFINITY
            } else {
                r
            }
        })
        .fold(0.0, f64::max)
}

/// The measurements and the summary table: best GB/s per path, level and order.
pub fn matvec_shapes(gpu: &Gpu, o: &Options) -> Result<()> {
    write_sources(&o.out)?;
    println!(
        "\nA x in {} shapes beside the product's kernel, GB/s = 4 n^2 / time (median of {} batches), two rounds; WGSL in {}",
        SHAPES.len(),
        o.batches,
        o.out
    );
    let levels: Vec<_> = check_levels()
        .into_iter()
        .filter(|(name, _)| *name != "bounds checks only")
        .collect();
    // best[path][level][size]
    let paths = SHAPES.len() + 1;
    let mut best = vec![vec![vec![0.0f64; o.mv_shape_sizes.len()]; levels.len()]; paths];
    for (si, &n) in o.mv_shape_sizes.iter().enumerate() {
        let mut rng = Rng::new(n as u32 + 1);
        let a = rng.matrix(n * n, -1.0, 1.0);
        let x = rng.matrix(n, -1.0, 1.0);
        let (ga, gx) = (gpu.upload(&a, n, n)?, gpu.upload(&x, n, 1)?);
        let (ga, gx) = (&ga, &gx);
        for round in 1..=2 {
            for (li, (level, checks)) in levels.iter().enumerate() {
                webgpu(gpu).set_runtime_checks(*checks);
                for (p, best) in best.iter_mut().enumerate() {
                    let (name, op): (String, Box<dyn Fn() -> Result<Matrix>>) = if p == 0 {
                        (
                            "product kernel (matvec_tiled)".into(),
                            Box::new(|| gpu.mul_vec_compute(ga, gx)),
                        )
                    } else {
                        let s = shape(SHAPES[p - 1]);
                        (
                            matvec_shaped(s).name.to_string(),
                            Box::new(move || gpu.mul_vec_shaped(ga, gx, s)),
                        )
                    };
                    let (seconds, y) = time(gpu, o.batches, 400, op)?;
                    let worst = worst_row(&block_on(gpu.read(&y))?, &a, &x, n);
                    let gbs = (4 * n * n) as f64 / seconds / 1e9;
                    if worst <= 1.0 {
                        best[li][si] = best[li][si].max(gbs);
                    }
                    println!(
                        "n={n:5} r{round} {name:34} [{level}] {:8.1} us {:7.1} GB/s ({:4.1}% of 3.35 TB/s) check {} (worst {worst:.2e} of bound)",
                        seconds * 1e6,
                        gbs,
                        gbs / 33.5,
                        if worst <= 1.0 { "ok" } else { "WRONG" }
                    );
                }
            }
        }
        gpu.release_pooled();
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    println!("\nBest of two rounds, GB/s [wgpu default checks] / [no run-time checks]:");
    print!("{:36}", "path");
    for n in &o.mv_shape_sizes {
        print!(" {:>16}", format!("n={n}"));
    }
    println!();
    for (p, row) in best.iter().enumerate() {
        let name = if p == 0 {
            "product kernel (matvec_tiled)".to_string()
        } else {
            matvec_shaped(shape(SHAPES[p - 1])).name.to_string()
        };
        print!("{name:36}");
        for si in 0..o.mv_shape_sizes.len() {
            print!(" {:>16}", format!("{:.0} / {:.0}", row[0][si], row[1][si]));
        }
        println!();
    }
    Ok(())
}
