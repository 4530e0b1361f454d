//! `--kernel-sweep`: which kernel the product and A x should run at each order. For every n of
//! `--sizes` (ascending), each path in turn for `--rounds` rounds (paths alternating within a
//! round), the median of the rounds reported; every result checked against float64 first.
//! Then n = 1024 and 2048 again, after the largest order, for a slowdown that history leaves.
//! Writes `kernel-sweep.json` into `--out`.

use std::fmt::Write as _;

use texla::error::Result;
use texla::gpu::{Gpu, MatVecKernel, ProductKernel};
use texla::kernels;
use texla::matrix::Matrix;
use texla::reference::Rng;

use crate::common::{block_on, median, time, webgpu};
use crate::matvec::check_matvec;
use crate::options::Options;
use crate::products::{check_product, tflops};

type Op = Box<dyn Fn(&Gpu, &Matrix, &Matrix) -> Result<Matrix>>;

/// The product paths compared at every order.
fn product_paths() -> Vec<(String, Op)> {
    let mut paths: Vec<(String, Op)> = vec![(
        "auto".into(),
        Box::new(|g: &Gpu, a: &Matrix, b: &Matrix| g.mul(a, b)),
    )];
    for chunk in kernels::TILED_CHUNKS {
        paths.push((
            format!("chunk {chunk}, 128 wide"),
            Box::new(move |g: &Gpu, a: &Matrix, b: &Matrix| {
                let kernel = ProductKernel::Compute {
                    chunk,
                    slices: None,
                    width: Some(128),
                };
                g.mul_with(kernel, a, b)
            }),
        ));
    }
    // Blocks of 64 or 128 columns, k whole or split: what the choice by size picks from.
    for (width, slices) in [(128, 1), (128, 2), (64, 1), (64, 2), (64, 4)] {
        paths.push((
            format!("chunk 32, {width} wide, k in {slices}"),
            Box::new(move |g: &Gpu, a: &Matrix, b: &Matrix| {
                let kernel = ProductKernel::Compute {
                    chunk: 32,
                    slices: Some(slices),
                    width: Some(width),
                };
                g.mul_with(kernel, a, b)
            }),
        ));
    }
    paths
}

/// The A x paths compared at every order.
fn matvec_paths() -> Vec<(String, Op)> {
    vec![
        (
            "auto".into(),
            Box::new(|g: &Gpu, a: &Matrix, x: &Matrix| g.mul_vec(a, x)),
        ),
        (
            "fragment, blocked".into(),
            Box::new(|g: &Gpu, a: &Matrix, x: &Matrix| g.mul_vec_with(MatVecKernel::Blocked, a, x)),
        ),
    ]
}

/// One order's measurements: per path, the rate of each round (None where it failed or was
/// wrong).
struct Measured {
    n: usize,
    label: String,
    rates: Vec<Vec<f64>>,
    worst: Vec<f64>,
}

fn measure(
    gpu: &Gpu,
    o: &Options,
    n: usize,
    label: &str,
    vector: bool,
    paths: &[(String, Op)],
) -> Result<Measured> {
    let mut rng = Rng::new(n as u32 + u32::from(vector));
    let a = rng.matrix(n * n, -1.0, 1.0);
    let cols = if vector { 1 } else { n };
    let b = rng.matrix(n * cols, -1.0, 1.0);
    let (ga, gb) = (gpu.upload(&a, n, n)?, gpu.upload(&b, n, cols)?);
    let mut m = Measured {
        n,
        label: label.into(),
        rates: vec![vec![]; paths.len()],
        worst: vec![0.0; paths.len()],
    };
    for round in 0..o.rounds {
        for (i, (_, op)) in paths.iter().enumerate() {
            let (seconds, c) = match time(gpu, o.batches, 200, || op(gpu, &ga, &gb)) {
                Ok(r) => r,
                Err(e) => {
                    println!("n={n:5} {} failed: {e}", paths[i].0);
                    m.worst[i] = f64::INFINITY;
                    continue;
                }
            };
            if round == 0 {
                let data = block_on(gpu.read(&c))?;
                m.worst[i] = if vector {
                    check_matvec(&data, &a, &b, n)
                } else {
                    check_product(&data, &a, &b, (n, n, n), 128, 7 * n as u32)
                };
            }
            if m.worst[i] <= 1.0 {
                m.rates[i].push(if vector {
                    (n * n * 4) as f64 / seconds / 1e9
                } else {
                    tflops(n, seconds)
                });
            }
        }
    }
    gpu.release_pooled();
    Ok(m)
}

fn table(title: &str, unit: &str, paths: &[(String, Op)], all: &[Measured], json: &mut String) {
    println!("\n{title} ({unit}, median of rounds; '!' marks a wrong result):");
    print!("{:>6} {:>12}", "n", "");
    for i in 0..paths.len() {
        print!(" {:>12}", format!("[{i}]"));
    }
    println!("   best path");
    for m in all {
        print!("{:6} {:>12}", m.n, m.label);
        let mut best = (0.0f64, "");
        for (i, (name, _)) in paths.iter().enumerate() {
            if m.worst[i] > 1.0 || m.rates[i].is_empty() {
                print!(" {:>12}", "!");
                continue;
            }
            let v = median(m.rates[i].clone());
            if v > best.0 {
                best = (v, name);
            }
            print!(" {v:12.2}");
        }
        println!("   {}", best.1);
        for (i, (name, _)) in paths.iter().enumerate() {
            let _ = write!(
                json,
                "{}{{\"table\":\"{unit}\",\"n\":{},\"when\":\"{}\",\"path\":\"{name}\",\"rates\":{:?},\"worst\":{}}}",
                if json.ends_with('[') { "" } else { ",\n" },
                m.n,
                m.label,
                m.rates[i],
                if m.worst[i].is_finite() { m.worst[i] } else { -1.0 }
            );
        }
    }
    println!("paths:");
    for (i, (name, _)) in paths.iter().enumerate() {
        println!("  [{i}] {name}");
    }
}

pub fn kernel_sweep(gpu: &Gpu, o: &Options) -> Result<()> {
    // As a user gets them (the tiled product unchecked, the rest checked), unless named.
    let checks = match (o.no_checks, o.checks) {
        (true, _) => Some(wgpu::ShaderRuntimeChecks::unchecked()),
        (_, true) => Some(wgpu::ShaderRuntimeChecks::checked()),
        _ => None,
    };
    if let Some(checks) = checks {
        webgpu(gpu).set_runtime_checks(checks);
    }
    let (kernel, _) = gpu.product_kernel();
    let checks = checks.map_or("the library's own".to_string(), |c| format!("{c:?}"));
    println!("auto product kernel here: {kernel:?}; wgpu run-time checks: {checks}");
    let mut sizes = o.sizes.clone();
    sizes.sort_unstable();
    let mut json = String::from("[");
    // `--paths a|b`: only the paths whose names contain one of these.
    let keep = |paths: &mut Vec<(String, Op)>| {
        if let Some(only) = &o.paths {
            paths.retain(|(name, _)| only.split('|').any(|p| name.contains(p)));
        }
    };
    let mut paths = matvec_paths();
    keep(&mut paths);
    let mut all = Vec::new();
    for &n in &sizes {
        if n >= 1024 && !paths.is_empty() {
            all.push(measure(gpu, o, n, "", true, &paths)?);
        }
    }
    table("A x, GB/s of A read", "GB/s", &paths, &all, &mut json);
    let mut paths = product_paths();
    keep(&mut paths);
    let mut all = Vec::new();
    for &n in &sizes {
        all.push(measure(gpu, o, n, "", false, &paths)?);
        println!("n={n} measured");
    }
    for n in [1024, 2048] {
        all.push(measure(gpu, o, n, "after largest", false, &paths)?);
    }
    table("C = A B, TFLOPS", "TFLOPS", &paths, &all, &mut json);
    json.push(']');
    let file = std::path::Path::new(&o.out).join("kernel-sweep.json");
    std::fs::write(&file, json).map_err(|e| texla::error::Error::Gpu(e.to_string()))?;
    println!("wrote {}", file.display());
    Ok(())
}
