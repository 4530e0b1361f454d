//! Native benchmark: texla's own kernels and WebGPU backend (wgpu on Vulkan), timed on a real GPU.
//!
//! Build with `cargo build --release -p native_bench`. Prints, for matrix
//! products at each n (default 1024, 2048, 4096, 8192): TFLOPS of the teaching fragment kernel,
//! the fast fragment kernel and the compute path (several block shapes), each checked against
//! float64 on a sample of elements; then matrix-vector products; then the dense LCP
//! (n = 400, 800 projected-Jacobi iterations) in one dispatch, beside the per-iteration paths;
//! then frames of the collapsing wall as the page runs them (`wall.rs`: the default solver for
//! 60 and 600 cubes, or the scenes of `--walls 1,10,100`, awake, asleep and hit by the ball;
//! the seed's preset in both layouts), beside the float64 solve of the same LCP; then seed
//! 004's NMF at the thesis's shape (`nmf.rs`).
//!
//! Timing: every operation runs once to build its pipeline, then in batches of back-to-back runs
//! between two waits for the GPU (`finish` polls the device until the queue is idle); the
//! median batch is reported. Options: `--sizes 1024,4096`, `--batches 5`, `--no-lcp`,
//! `--no-products`, `--no-wall`, `--no-nmf`, `--quick` (fewer variants), `--paths TEXT` (only
//! the products whose name contains TEXT, without run-time checks), `--lcp-n 400`,
//! `--lcp-iterations 800`, `--walls 1,10,100` (the wall's scenes), `--wall-frames 20` (frames
//! timed in every wall case), `--wall-copies` (several walls asleep as copies of one),
//! `--wall-cpu` (the wall's awake scenes only; every wall line is followed by its frame's parts).
//!
//! The seeds' figures (only these run when one is named; README, "Native benchmark"):
//! `--instructions` (the thesis's Table 5 instruction counts, no GPU; `instructions.rs`),
//! `--figure3` (the ShaderX2 article's Figure 3 at n = 1000; `figure3.rs`) and `--mulvec-sweep` (Fujimoto's
//! A x at orders 16 to 12800; `mulvec_sweep.rs`), each writing a JSON record into `--out DIR`,
//! and `--float-float` (float-float against float32: products, A x and dot; `float_float.rs`,
//! sizes by `--ff-sizes 256,512`, `--ff-mv-sizes 1024`, `--ff-dot-n 1048576`; prints a table),
//! and `--linear` (the SIMD-optimization paper's measures, Table 3 and Table 4: `linear.rs`; `--linear-grid 40,80,80`,
//! `--linear-cols 4096`, `--linear-max-iter 20000`, `--wave-side 512`; writes linear.json).

mod figure3;
mod float_float;
mod instructions;
mod linear;
mod mulvec_sweep;
mod nmf;
mod options;
mod wall;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use texla::backend::WebGpu;
use texla::error::Result;
use texla::gpu::{Gpu, MatVecKernel, ProductKernel};
use texla::matrix::Matrix;
use texla::reference::{dot_error_bound, Rng};

use options::{options, Options};

/// The WebGPU backend under `gpu`, to tune what only it has.
fn webgpu(gpu: &Gpu) -> std::rc::Rc<WebGpu> {
    gpu.backend_as::<WebGpu>()
        .expect("the native benchmark opens WebGPU")
}

/// Runs a future to completion on this thread. texla's futures complete on their first poll
/// natively (the backend waits for the GPU inside), so a no-op waker is enough.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds per run of `op`: one run to build its pipeline, one timed run to size the batches
/// (about 50 ms each, at most `per_batch` runs), then `batches` batches of back-to-back runs
/// between waits for the GPU; the median batch. Returns the last result too, for checking.
fn time<T, F: FnMut() -> Result<T>>(
    gpu: &Gpu,
    batches: usize,
    per_batch: usize,
    mut op: F,
) -> Result<(f64, T)> {
    op()?;
    block_on(gpu.finish())?;
    let t0 = Instant::now();
    let mut last = op()?;
    block_on(gpu.finish())?;
    let once = t0.elapsed().as_secs_f64();
    let per_batch = ((0.05 / once).ceil() as usize).clamp(1, per_batch);
    let batches = if once > 0.5 { batches.min(3) } else { batches };
    let mut samples = Vec::new();
    for _ in 0..batches {
        let t0 = Instant::now();
        for _ in 0..per_batch {
            last = op()?;
        }
        block_on(gpu.finish())?;
        samples.push(t0.elapsed().as_secs_f64() / per_batch as f64);
    }
    Ok((median(samples), last))
}

/// The run-time checks wgpu can build into shaders, from all (its default) to none.
fn check_levels() -> Vec<(&'static str, wgpu::ShaderRuntimeChecks)> {
    let mut bounds_only = wgpu::ShaderRuntimeChecks::unchecked();
    bounds_only.bounds_checks = true;
    vec![
        ("wgpu default checks", wgpu::ShaderRuntimeChecks::checked()),
        ("bounds checks only", bounds_only),
        ("no run-time checks", wgpu::ShaderRuntimeChecks::unchecked()),
    ]
}

/// Worst |gpu - exact| / bound over `samples` random elements of C = A B (row-major f32 data),
/// with the float64 reference computed for those elements only.
fn check_product(
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

fn tflops(n: usize, seconds: f64) -> f64 {
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

fn products(gpu: &Gpu, o: &Options) -> Result<()> {
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
        if texla::kernels::tiled_workgroup_bytes(bk) <= storage && (bk == 8 || !o.quick) {
            paths.push((
                format!("compute, 128x128 blocks, 8x8 per thread, k chunk {bk}, k split by size"),
                Box::new(move |g, a, b| {
                    let kernel = ProductKernel::Compute {
                        chunk: bk,
                        slices: None,
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

fn matvec(gpu: &Gpu, o: &Options) -> Result<()> {
    println!("\nA x (n x n times n x 1), GB/s of A read (n^2 * 4 bytes per product):");
    for (level, checks) in check_levels() {
        if level == "bounds checks only" {
            continue;
        }
        webgpu(gpu).set_runtime_checks(checks);
        println!("[{level}]");
        matvec_sizes(gpu, o)?;
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    Ok(())
}

fn matvec_sizes(gpu: &Gpu, o: &Options) -> Result<()> {
    for n in [1024usize, 4096, 8192] {
        let mut rng = Rng::new(n as u32 + 1);
        let a = rng.matrix(n * n, -1.0, 1.0);
        let x = rng.matrix(n, -1.0, 1.0);
        let (ga, gx) = (gpu.upload(&a, n, n)?, gpu.upload(&x, n, 1)?);
        let paths: [(&str, &dyn Fn() -> Result<Matrix>); 3] = [
            ("fragment, blocked (2 passes)", &|| {
                gpu.mul_vec_with(MatVecKernel::Blocked, &ga, &gx)
            }),
            ("fragment, naive", &|| {
                gpu.mul_vec_with(MatVecKernel::Naive, &ga, &gx)
            }),
            ("compute (1 dispatch)", &|| {
                gpu.mul_vec_with(MatVecKernel::Compute, &ga, &gx)
            }),
        ];
        for (name, op) in paths {
            let (seconds, y) = time(gpu, o.batches, 50, op)?;
            let got = block_on(gpu.read(&y))?;
            let worst = (0..n)
                .map(|i| {
                    let (mut e, mut s) = (0.0f64, 0.0f64);
                    for j in 0..n {
                        let t = f64::from(a[i * n + j]) * f64::from(x[j]);
                        e += t;
                        s += t.abs();
                    }
                    (f64::from(got[i]) - e).abs() / dot_error_bound(n, s)
                })
                .fold(
                    0.0f64,
                    |m, r| if r.is_nan() { f64::INFINITY } else { m.max(r) },
                );
            println!(
                "n={n:5} {name:32} {:8.1} us {:8.1} GB/s  check {} (worst {worst:.2e} of bound)",
                seconds * 1e6,
                (n * n * 4) as f64 / seconds / 1e9,
                if worst <= 1.0 { "ok" } else { "WRONG" }
            );
        }
    }
    gpu.release_pooled();
    Ok(())
}

fn lcp(gpu: &Gpu, o: &Options) -> Result<()> {
    let (n, iterations, omega) = (o.lcp_n, o.lcp_iterations, -0.8f32);
    let p = texla::problems::lcp(n, 1);
    let reference = texla::reference::lcp_jacobi(&p.a, &p.b, n, f64::from(omega), iterations);
    let scale = reference.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let known =
        p.x.iter()
            .zip(&reference)
            .map(|(s, r)| (s - r).abs())
            .fold(0.0, f64::max);
    println!(
        "\nLCP n = {n}, {iterations} projected-Jacobi iterations, omega = {omega}: float64 reference is {known:.1e} from the known answer"
    );
    let (a, b) = (gpu.upload(&p.a, n, n)?, gpu.upload(&p.b, n, 1)?);
    let x0 = gpu.fill(n, 1, 0.0)?;
    let error = |x: &Matrix| -> Result<f64> {
        let got = block_on(gpu.read(x))?;
        Ok(got
            .iter()
            .zip(&reference)
            .map(|(g, r)| (f64::from(*g) - r).abs())
            .fold(
                0.0f64,
                |m, e| if e.is_nan() { f64::INFINITY } else { m.max(e) },
            )
            / scale)
    };
    let report = |name: &str, frame: f64, batch: f64, x: &Matrix| -> Result<()> {
        let e = error(x)?;
        println!(
            "{name:52} {:8.3} ms per solve (submit to done), {:8.3} ms back to back; error {e:.1e} of max|x| {}",
            frame * 1e3,
            batch * 1e3,
            if e <= 1e-4 { "ok" } else { "WRONG" }
        );
        Ok(())
    };
    // (workgroups, texel rows per block); None: the library's choice.
    let h = n.div_ceil(4);
    let mut counts: Vec<(Option<usize>, Option<usize>)> = vec![
        (None, None),
        (Some(1), Some(4)),
        (Some(h.div_ceil(4)), Some(4)),
        (Some(h.div_ceil(2)), Some(2)),
        (Some(h), Some(1)),
        (Some(h.div_ceil(8)), Some(4)),
    ];
    counts.dedup();
    for (level, checks) in check_levels() {
        webgpu(gpu).set_runtime_checks(checks);
        println!("[{level}]");
        lcp_paths(gpu, &counts, (n, iterations, omega), (&a, &b, &x0), &report)?;
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    Ok(())
}

type Report<'a> = dyn Fn(&str, f64, f64, &Matrix) -> Result<()> + 'a;

fn lcp_paths(
    gpu: &Gpu,
    counts: &[(Option<usize>, Option<usize>)],
    (n, iterations, omega): (usize, usize, f32),
    (a, b, x0): (&Matrix, &Matrix, &Matrix),
    report: &Report<'_>,
) -> Result<()> {
    let _ = n;
    for &(w, rows) in counts {
        let op = || {
            texla::solver::lcp_jacobi_blocks(gpu, (a, b, x0), None, (omega, iterations), (w, rows))
        };
        let (frame, _) = time(gpu, 21, 1, op)?;
        let (batch, x) = time(gpu, 3, 10, op)?;
        let name = match (w, rows) {
            (Some(w), Some(r)) => format!("compute, one dispatch, {w} workgroups, blocks of {r}"),
            _ => "compute, one dispatch, the library's choice".to_string(),
        };
        report(&name, frame, batch, &x)?;
    }
    // The per-iteration paths, one submission per pass (as the solver in lcp.rs runs them).
    let d = {
        let diag = gpu.diagonal(a)?;
        use texla::kernels::{Expr, Func2};
        let over = Expr::call2(Func2::Div, Expr::Const(omega), Expr::Input(0));
        gpu.map(&over, &[&diag])?
    };
    let step = texla::kernels::Expr::parse("max(a + (b + c) * d, 0)")?;
    let per_iteration = |compute: bool| -> Result<Matrix> {
        let mut x = x0.clone();
        for _ in 0..iterations {
            let w = if compute {
                gpu.mul_vec_with(MatVecKernel::Compute, a, &x)?
            } else {
                gpu.mul_vec_with(MatVecKernel::Blocked, a, &x)?
            };
            x = gpu.map(&step, &[&x, b, &w, &d])?;
        }
        Ok(x)
    };
    let (frame, x) = time(gpu, 3, 1, || per_iteration(false))?;
    report("fragment, 3 passes per iteration", frame, frame, &x)?;
    let (frame, x) = time(gpu, 3, 1, || per_iteration(true))?;
    report(
        "compute A x + fragment step, 2 passes per iteration",
        frame,
        frame,
        &x,
    )?;
    Ok(())
}

fn main() {
    let o = options();
    if o.instructions {
        // Needs no GPU: before the adapter is opened.
        if let Err(e) = instructions::instructions(&o.out) {
            eprintln!("instruction counts failed: {e}");
            std::process::exit(1);
        }
        if !(o.figure3 || o.mulvec_sweep || o.float_float || o.linear) {
            return;
        }
    }
    let backend = match block_on(WebGpu::create()) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let gpu = Gpu::new(backend, None);
    let caps = gpu.capabilities().clone();
    println!(
        "adapter: {}; max texture {}; render targets {}; workgroup memory {} bytes",
        caps.adapter, caps.max_texture_size, caps.max_render_targets, caps.max_workgroup_storage
    );
    let result = (|| {
        if o.figures_only() {
            if o.figure3 {
                figure3::figure3(&gpu, &o)?;
            }
            if o.mulvec_sweep {
                mulvec_sweep::sweep(&gpu, &o)?;
            }
            if o.float_float {
                float_float::float_float(&gpu, &o)?;
            }
            if o.linear {
                linear::linear(&gpu, &o)?;
            }
            return Ok(());
        }
        if o.lcp {
            lcp(&gpu, &o)?;
        }
        if o.wall {
            wall::wall(&gpu, &o)?;
        }
        if o.nmf {
            nmf::nmf(&gpu, 200)?;
        }
        if o.products {
            matvec(&gpu, &o)?;
            products(&gpu, &o)?;
        }
        Ok::<_, texla::error::Error>(())
    })();
    if let Err(e) = result {
        eprintln!("benchmark failed: {e}");
        std::process::exit(1);
    }
}
