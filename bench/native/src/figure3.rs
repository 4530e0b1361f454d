//! `--figure3`: the ShaderX2 article's Figure 3 natively. Copy, add, multiply, transposed multiply, CG and
//! projected Jacobi on a 1000 x 1000 matrix (`--figure3-n`), the page's problems
//! (www/benchmark/bench-figures.js, `runFigure3`): A and B uniform in [-1, 1) from the generator seeded
//! with n, each scaled to infinity norm 1; CG on `problems::random_spd(n, 1)` to a relative
//! residual of 1e-5 (at most n iterations); projected Jacobi on `problems::lcp(n, 1)`, omega
//! -0.8, 2n iterations (and the same in one compute dispatch, a row the page's figure has not).
//! The operands are on the GPU before the call; each time runs from the call to the end of the
//! read-back of the result, one warm-up run, then the median of `--figure3-runs` runs. Prints a
//! table and writes `native-figure3.json` into `--out`; `bench/cublas.py --figure3
//! --texla FILE` times the same operations in PyTorch and prints the ratios.

use std::time::Instant;

use texla::error::Result;
use texla::gpu::{ops, Gpu, ProductKernel, Transpose};
use texla::matrix::Matrix;
use texla::reference::Rng;
use texla::solver::{self, CgOptions, LcpOptions};

use crate::common::{block_on, median};
use crate::options::Options;

/// One operation's measurement.
struct Row {
    op: &'static str,
    /// Milliseconds from the call to the end of the read-back: median and fastest run.
    ms: f64,
    min_ms: f64,
    /// Iterations a solver ran (0 for the others).
    iterations: usize,
    /// max |result - float64| / max |float64| (solvers: against the problem's known answer).
    error: f64,
}

/// `len` values uniform in [-1, 1) scaled so that the n x n matrix has infinity norm 1 (the
/// page's `productMatrices`).
fn normalised(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut a = rng.matrix(n * n, -1.0, 1.0);
    let norm = a
        .chunks(n)
        .map(|row| row.iter().map(|v| v.abs()).sum::<f32>())
        .fold(0.0f32, f32::max);
    a.iter_mut().for_each(|v| *v /= norm);
    a
}

/// Largest |got - want| over the largest |want|.
fn relative_error(got: &[f32], want: &[f64]) -> f64 {
    let scale = want
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    got.iter()
        .zip(want)
        .map(|(g, w)| (f64::from(*g) - w).abs())
        .fold(
            0.0f64,
            |m, e| if e.is_nan() { f64::INFINITY } else { m.max(e) },
        )
        / scale
}

/// Runs `op` (which returns the result on the GPU and the iterations it ran) once to warm up,
/// then `runs` times, each from the call to the end of the read-back; returns (median ms,
/// fastest ms, iterations, the last result read back).
fn to_read_back(
    gpu: &Gpu,
    runs: usize,
    mut op: impl FnMut() -> Result<(Matrix, usize)>,
) -> Result<(f64, f64, usize, Vec<f32>)> {
    let (m, _) = op()?;
    block_on(gpu.read(&m))?;
    let (mut samples, mut last) = (Vec::new(), (Vec::new(), 0));
    for _ in 0..runs {
        let t0 = Instant::now();
        let (m, iterations) = op()?;
        let data = block_on(gpu.read(&m))?;
        samples.push(t0.elapsed().as_secs_f64() * 1e3);
        last = (data, iterations);
    }
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((median(samples), min, last.1, last.0))
}

/// Times the figure's operations at order `o.figure3_n` and prints and records them.
pub fn figure3(gpu: &Gpu, o: &Options) -> Result<()> {
    let (n, runs) = (o.figure3_n, o.figure3_runs);
    println!(
        "\nThe ShaderX2 article's Figure 3 at n = {n}: ms from the call to the end of the read-back (median of {runs} runs after a warm-up; data on the GPU before the call)"
    );
    let mut rng = Rng::new(n as u32);
    let (a, b) = (normalised(&mut rng, n), normalised(&mut rng, n));
    let (ga, gb) = (gpu.upload(&a, n, n)?, gpu.upload(&b, n, n)?);
    let mut rows = Vec::new();
    // The float64 answers of the cheap operations, and sampled rows of the products.
    let exact = |f: &dyn Fn(usize) -> f64| (0..n * n).map(f).collect::<Vec<f64>>();
    let copy64 = exact(&|i| f64::from(a[i]));
    let add64 = exact(&|i| f64::from(a[i]) + f64::from(b[i]));
    let product_rows = |data: &[f32], transposed: bool| {
        // Rows 0, n/2 and n-1 of A B (or A^T B) in float64 against the GPU's.
        let mut worst = 0.0f64;
        for i in [0, n / 2, n - 1] {
            let want: Vec<f64> = (0..n)
                .map(|j| {
                    (0..n)
                        .map(|k| {
                            let aik = if transposed {
                                a[k * n + i]
                            } else {
                                a[i * n + k]
                            };
                            f64::from(aik) * f64::from(b[k * n + j])
                        })
                        .sum()
                })
                .collect();
            worst = worst.max(relative_error(&data[i * n..(i + 1) * n], &want));
        }
        worst
    };
    let simple: [(&'static str, &dyn Fn() -> Result<Matrix>); 4] = [
        ("copy", &|| gpu.map(&ops::copy(), &[&ga])),
        ("add", &|| gpu.map(&ops::add(), &[&ga, &gb])),
        ("multiply", &|| gpu.mul(&ga, &gb)),
        ("transposed multiply", &|| {
            gpu.mul_transposed(ProductKernel::Auto, &ga, &gb, Transpose::A)
        }),
    ];
    for (op, run) in simple {
        let (ms, min_ms, _, data) = to_read_back(gpu, runs, || Ok((run()?, 0)))?;
        let error = match op {
            "copy" => relative_error(&data, &copy64),
            "add" => relative_error(&data, &add64),
            "multiply" => product_rows(&data, false),
            _ => product_rows(&data, true),
        };
        rows.push(Row {
            op,
            ms,
            min_ms,
            iterations: 0,
            error,
        });
        gpu.release_pooled();
    }
    // The solvers, on the page's problems, against their known answers.
    let spd = texla::problems::random_spd(n, 1);
    let (sa, sb) = (gpu.upload(&spd.a, n, n)?, gpu.upload(&spd.b, n, 1)?);
    let cg = CgOptions {
        tol: 1e-5,
        max_iter: n,
        fused: false,
    };
    let (ms, min_ms, iterations, x) = to_read_back(gpu, runs, || {
        let s = block_on(solver::cg(gpu, &sa, &sb, None, cg, &mut |_| true))?;
        Ok((s.x, s.iterations))
    })?;
    let error = relative_error(&x, &spd.x);
    rows.push(Row {
        op: "CG",
        ms,
        min_ms,
        iterations,
        error,
    });
    let lcp = texla::problems::lcp(n, 1);
    let (la, lb) = (gpu.upload(&lcp.a, n, n)?, gpu.upload(&lcp.b, n, 1)?);
    let options = LcpOptions {
        omega: -0.8,
        iterations: 2 * n,
        residual: false,
        ..LcpOptions::default()
    };
    let (ms, min_ms, iterations, x) = to_read_back(gpu, runs, || {
        let s = block_on(solver::lcp_jacobi(
            gpu,
            &la,
            &lb,
            None,
            options,
            &mut |_| true,
        ))?;
        Ok((s.x, s.iterations))
    })?;
    let error = relative_error(&x, &lcp.x);
    rows.push(Row {
        op: "projected Jacobi",
        ms,
        min_ms,
        iterations,
        error,
    });
    if gpu.capabilities().compute {
        let (ms, min_ms, iterations, x) = to_read_back(gpu, runs, || {
            let s = block_on(solver::lcp_jacobi_compute(
                gpu,
                &la,
                &lb,
                None,
                options,
                None,
                &mut |_| true,
            ))?;
            Ok((s.x, s.iterations))
        })?;
        let error = relative_error(&x, &lcp.x);
        rows.push(Row {
            op: "projected Jacobi, one dispatch",
            ms,
            min_ms,
            iterations,
            error,
        });
    }
    gpu.release_pooled();
    print_and_record(gpu, o, &rows)
}

fn print_and_record(gpu: &Gpu, o: &Options, rows: &[Row]) -> Result<()> {
    let n = o.figure3_n;
    println!(
        "{:32} {:>10} {:>10} {:>10} {:>24}",
        "operation", "median ms", "fastest", "iterations", "max error / max |exact|"
    );
    for r in rows {
        println!(
            "{:32} {:10.3} {:10.3} {:>10} {:24.1e}",
            r.op,
            r.ms,
            r.min_ms,
            if r.iterations > 0 {
                r.iterations.to_string()
            } else {
                "-".into()
            },
            r.error
        );
    }
    let json_rows: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "    {{ \"op\": \"{}\", \"ms\": {:.4}, \"minMs\": {:.4}, \"iterations\": {}, \"error\": {:.3e} }}",
                r.op, r.ms, r.min_ms, r.iterations, r.error
            )
        })
        .collect();
    let json = format!(
        "{{\n  \"what\": \"the ShaderX2 article's Figure 3 natively (native_bench --figure3): ms from the call to the end of the read-back, median of {} runs\",\n  \"adapter\": \"{}\",\n  \"n\": {n},\n  \"productKernel\": \"{}\",\n  \"rows\": [\n{}\n  ]\n}}\n",
        o.figure3_runs,
        gpu.capabilities().adapter.replace('"', "'"),
        gpu.product_kernel().0.name(),
        json_rows.join(",\n")
    );
    let path = std::path::Path::new(&o.out).join("native-figure3.json");
    std::fs::write(&path, json).map_err(|e| {
        texla::error::Error::Argument(format!("cannot write {}: {e}", path.display()))
    })?;
    println!("wrote {}", path.display());
    Ok(())
}
