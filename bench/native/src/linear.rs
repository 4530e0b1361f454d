//! `--linear`: the SIMD-optimization paper's four measures natively (issue 15, items 3 to 5; spec §1.8), natural
//! against optimised order:
//! 1. the paper's abstract cost and the multiplications' share of the lanes;
//! 2. the generated kernels counted: naga 30.0.1's IR of the WGSL (fma, mul, add, dot,
//!    texel fetches) and the GLSL twin's source text;
//! 3. milliseconds per sweep: `y = A x + b` of each example (`LinearExpr::apply_gpu` on
//!    `--linear-cols` vectors at once), one EBJ iteration, one wave step;
//! 4. iterations to tolerance of the EBJ solver (GPU float32 with x read back and the float64
//!    residual after every iteration; float64 EBJ and Gauss-Seidel on the CPU).
//!
//! Then the seed's Table 3 (EBJ on the `--linear-grid` grid, 40 x 80 x 80 by default, at
//! tolerances 1e-3, 1e-4, 1e-5: ms with the upload of b and the read-back of x, and without)
//! and Table 4 (the `--wave-side` square wave, ms per step with and without reading the heights
//! back, against a float64 step on the CPU). Tables go to stdout, `linear.json` to `--out`.

use std::fmt::Write as _;
use std::time::Instant;

use texla::error::Result;
use texla::gpu::Gpu;
use texla::reference::Rng;
use texla::simd_expr::measures::{naga_counts, source_counts, ShaderCounts};
use texla::simd_expr::{examples, LinearExpr};
use texla::stencil::{Ebj, PoissonGrid, Wave};

use crate::common::{block_on, time};
use crate::options::Options;

/// The tolerances of Table 3.
const TOLS: [f64; 3] = [1e-3, 1e-4, 1e-5];

fn add(a: ShaderCounts, c: ShaderCounts) -> ShaderCounts {
    ShaderCounts {
        fma: a.fma + c.fma,
        mul: a.mul + c.mul,
        add: a.add + c.add,
        dot: a.dot + c.dot,
        fetches: a.fetches + c.fetches,
    }
}

fn show(c: &ShaderCounts) -> String {
    format!(
        "{} ops ({} fma, {} mul, {} add, {} dot), {} fetches",
        c.ops(),
        c.fma,
        c.mul,
        c.add,
        c.dot,
        c.fetches
    )
}

/// The kernels' counts: naga on the WGSL modules, text on the GLSL bodies.
fn counts(kernels: &[texla::kernels::Kernel]) -> Result<(ShaderCounts, ShaderCounts)> {
    let mut n = ShaderCounts::default();
    let mut g = ShaderCounts::default();
    for k in kernels {
        n = add(n, naga_counts(&k.wgsl_source())?);
        g = add(g, source_counts(&k.glsl));
    }
    Ok((n, g))
}

/// Iterations of the GPU EBJ to each tolerance: x read back and the float64 residual after
/// every iteration, at most `max_iter`.
fn gpu_iterations(gpu: &Gpu, e: &Ebj, b: &[f64], max_iter: usize) -> Result<Vec<Option<usize>>> {
    let passes = e.passes()?;
    let mut st = e.upload(gpu, b, None)?;
    let mut out = vec![None; TOLS.len()];
    for it in 1..=max_iter {
        e.sweep_gpu(gpu, &passes, &mut st)?;
        let x = block_on(e.read(gpu, &st))?;
        let r = e.grid.residual(&x, b);
        for (o, &t) in out.iter_mut().zip(&TOLS) {
            if o.is_none() && r <= t {
                *o = Some(it);
            }
        }
        if r <= TOLS[2] {
            break;
        }
    }
    Ok(out)
}

fn opt(v: Option<usize>) -> String {
    v.map_or("not reached".into(), |n| n.to_string())
}

/// Runs everything and prints the tables.
pub fn linear(gpu: &Gpu, o: &Options) -> Result<()> {
    let mut json = String::from("{\n");
    // Measures 1 to 3 for the paper's examples, through gpu.linear.
    println!("\nThe SIMD-optimization paper: the examples through gpu.linear (y = A x + b on {} vectors), natural against optimised", o.linear_cols);
    println!("| example | order | cost C(E) | mult. / lanes | WGSL (naga) | GLSL (text) | ms per sweep |");
    println!("|---|---|---|---|---|---|---|");
    json.push_str("  \"examples\": [\n");
    let cases: Vec<(&str, LinearExpr)> = vec![
        ("rk-cars", examples::runge_kutta_cars(5)),
        ("poisson-2d-s", examples::poisson_2d_s()),
        ("poisson-3d-s", examples::poisson_3d_s()),
        ("wave-s-star", examples::wave_s_star()),
    ];
    let mut first = true;
    for (name, e) in &cases {
        let optimized = e.permute(&e.optimize(1, 40_000).1)?;
        for (order, x) in [("natural", e), ("optimized", &optimized)] {
            let m = x.size();
            let kernel = x.kernel()?;
            let (n, g) = counts(std::slice::from_ref(&kernel))?;
            let data = Rng::new(3).matrix(m * o.linear_cols, -1.0, 1.0);
            let gx = gpu.upload(&data, m, o.linear_cols)?;
            let (s, _) = time(gpu, o.batches, 200, || x.apply_gpu(gpu, &gx))?;
            let ops = x.nonzeros().len();
            let cost = x.cost();
            println!(
                "| {name} | {order} | {cost} | {ops}/{} | {} | {} | {:.4} |",
                4 * cost,
                show(&n),
                show(&g),
                s * 1e3
            );
            let _ = write!(
                json,
                "{}    {{\"example\": \"{name}\", \"order\": \"{order}\", \"cost\": {cost}, \"multiplications\": {ops}, \"naga\": {{\"ops\": {}, \"fetches\": {}}}, \"glsl\": {{\"ops\": {}, \"fetches\": {}}}, \"ms\": {:.5}}}",
                if first { "" } else { ",\n" },
                n.ops(),
                n.fetches,
                g.ops(),
                g.fetches,
                s * 1e3
            );
            first = false;
        }
    }
    json.push_str("\n  ],\n");
    gpu.release_pooled();

    // EBJ: Table 3.
    let (nx, ny, nz) = o.linear_grid;
    let grid = PoissonGrid::new(nx, ny, nz)?;
    let b = grid.rhs(1);
    println!("\nEBJ Poisson solver, {nx} x {ny} x {nz} ({} unknowns); tolerance |b - A x|_2 / |b|_2 (float64)", grid.len());
    let t0 = Instant::now();
    let gs = texla::stencil::iterations_to(&grid, &b, &TOLS, o.linear_max_iter, |x| {
        grid.gauss_seidel(x, &b)
    });
    let gs_s = t0.elapsed().as_secs_f64();
    let gs_sweeps = gs[2].unwrap_or(o.linear_max_iter).max(1);
    // Gauss-Seidel's time per sweep without the residual checks.
    let mut x = vec![0.0; grid.len()];
    let t0 = Instant::now();
    for _ in 0..gs_sweeps.min(200) {
        grid.gauss_seidel(&mut x, &b);
    }
    let gs_ms = t0.elapsed().as_secs_f64() * 1e3 / gs_sweeps.min(200) as f64;
    println!("Gauss-Seidel (Rust float64, CPU): iterations {:?}, {gs_ms:.3} ms per sweep (with residual checks {gs_s:.1} s)", gs.iter().map(|v| opt(*v)).collect::<Vec<_>>());
    println!("| solver | cost S / product | mult. / lanes | WGSL (naga), one iteration | GLSL (text) | ms per iteration | f64 iterations | GPU iterations | ms to 1e-3 / 1e-4 / 1e-5 with transfer | without transfer |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = String::new();
    for e in [Ebj::natural(grid), Ebj::optimized(grid)] {
        let passes = e.passes()?;
        let kernels: Vec<_> = passes.iter().map(|p| p.kernel.clone()).collect();
        let (n, g) = counts(&kernels)?;
        let (s, product) = e.cost();
        let ops = e.line_block().nonzeros().len() + if nz == 1 { 2 } else { 4 } * nx;
        let f64_its = e.iterations_to(&b, &TOLS, o.linear_max_iter);
        let gpu_its = gpu_iterations(gpu, &e, &b, o.linear_max_iter)?;
        let mut st = e.upload(gpu, &b, None)?;
        let (per_it, _) = time(gpu, o.batches, 50, || e.sweep_gpu(gpu, &passes, &mut st))?;
        let mut with = Vec::new();
        let mut without = Vec::new();
        for its in &gpu_its {
            let Some(its) = *its else {
                with.push(f64::NAN);
                without.push(f64::NAN);
                continue;
            };
            let t0 = Instant::now();
            let mut st = e.upload(gpu, &b, None)?;
            block_on(gpu.finish())?;
            let t1 = Instant::now();
            for _ in 0..its {
                e.sweep_gpu(gpu, &passes, &mut st)?;
            }
            block_on(gpu.finish())?;
            let compute = t1.elapsed().as_secs_f64();
            let _x = block_on(e.read(gpu, &st))?;
            with.push(t0.elapsed().as_secs_f64() * 1e3);
            without.push(compute * 1e3);
        }
        let ms3 = |v: &[f64]| {
            v.iter()
                .map(|m| format!("{m:.1}"))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "| EBJ {} | {s} / {product} | {ops}/{} | {} | {} | {:.3} | {} | {} | {} | {} |",
            e.name,
            4 * product,
            show(&n),
            show(&g),
            per_it * 1e3,
            f64_its
                .iter()
                .map(|v| opt(*v))
                .collect::<Vec<_>>()
                .join(" / "),
            gpu_its
                .iter()
                .map(|v| opt(*v))
                .collect::<Vec<_>>()
                .join(" / "),
            ms3(&with),
            ms3(&without)
        );
        let list = |v: &[Option<usize>]| {
            v.iter()
                .map(|x| x.map_or("null".into(), |n| n.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let flist = |v: &[f64]| {
            v.iter()
                .map(|x| {
                    if x.is_finite() {
                        format!("{x:.3}")
                    } else {
                        "null".into()
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = write!(
            rows,
            "{}    {{\"order\": \"{}\", \"cost_s\": {s}, \"cost_product\": {product}, \"naga\": {{\"ops\": {}, \"fetches\": {}}}, \"glsl\": {{\"ops\": {}, \"fetches\": {}}}, \"ms_per_iteration\": {:.5}, \"f64_iterations\": [{}], \"gpu_iterations\": [{}], \"ms_with_transfer\": [{}], \"ms_without_transfer\": [{}]}}",
            if rows.is_empty() { "" } else { ",\n" },
            e.name, n.ops(), n.fetches, g.ops(), g.fetches, per_it * 1e3, list(&f64_its), list(&gpu_its), flist(&with), flist(&without)
        );
        gpu.release_pooled();
    }
    let gs_list = gs
        .iter()
        .map(|x| x.map_or("null".into(), |n| n.to_string()))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = write!(
        json,
        "  \"ebj\": {{\"grid\": [{nx}, {ny}, {nz}], \"tolerances\": [0.001, 0.0001, 0.00001], \"gauss_seidel\": {{\"iterations\": [{gs_list}], \"ms_per_sweep\": {gs_ms:.4}}}, \"orders\": [\n{rows}\n  ]}},\n"
    );

    // The wave: Table 4.
    let side = o.wave_side;
    println!("\nWave {side} x {side}, ms per step (median of batches; with read-back: one step and the heights read back)");
    println!("| order | cost S* / product | WGSL (naga), one step | GLSL (text) | ms per step | with read-back |");
    println!("|---|---|---|---|---|---|");
    let mut rows = String::new();
    for order in ["natural", "optimized"] {
        let w = Wave::new(side, side, 0.25, order)?;
        let passes = w.passes()?;
        let kernels: Vec<_> = passes.iter().map(|p| p.kernel.clone()).collect();
        let (n, g) = counts(&kernels)?;
        let stone = w.stone(side as f64 / 3.0, side as f64 / 2.0, 1.0, 6.0);
        let mut st = w.upload(gpu, &stone, &stone)?;
        let (step, _) = time(gpu, o.batches, 200, || w.step_gpu(gpu, &passes, &mut st))?;
        let (read, _) = time(gpu, o.batches, 20, || {
            w.step_gpu(gpu, &passes, &mut st)?;
            block_on(w.read(gpu, &st.current))
        })?;
        let (s, p) = w.cost();
        println!(
            "| {order} | {s} / {p} | {} | {} | {:.4} | {:.3} |",
            show(&n),
            show(&g),
            step * 1e3,
            read * 1e3
        );
        let _ = write!(
            rows,
            "{}    {{\"order\": \"{order}\", \"cost_s_star\": {s}, \"cost_product\": {p}, \"naga\": {{\"ops\": {}, \"fetches\": {}}}, \"glsl\": {{\"ops\": {}, \"fetches\": {}}}, \"ms_per_step\": {:.5}, \"ms_with_readback\": {:.5}}}",
            if rows.is_empty() { "" } else { ",\n" },
            n.ops(), n.fetches, g.ops(), g.fetches, step * 1e3, read * 1e3
        );
        gpu.release_pooled();
    }
    let w = Wave::new(side, side, 0.25, "natural")?;
    let mut prev = w.stone(side as f64 / 3.0, side as f64 / 2.0, 1.0, 6.0);
    let mut cur = prev.clone();
    let t0 = Instant::now();
    for _ in 0..50 {
        w.step(&mut prev, &mut cur);
    }
    let cpu_ms = t0.elapsed().as_secs_f64() * 1e3 / 50.0;
    println!("CPU (Rust float64, one thread): {cpu_ms:.3} ms per step");
    let _ = write!(
        json,
        "  \"wave\": {{\"side\": {side}, \"cpu_f64_ms_per_step\": {cpu_ms:.4}, \"orders\": [\n{rows}\n  ]}}\n}}\n"
    );
    let path = format!("{}/linear.json", o.out);
    std::fs::write(&path, json)
        .map_err(|e| texla::error::Error::Argument(format!("{path}: {e}")))?;
    println!("wrote {path}");
    Ok(())
}
