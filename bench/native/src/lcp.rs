//! The dense LCP (`--lcp-n`, `--lcp-iterations` projected-Jacobi iterations) in one dispatch,
//! beside the per-iteration paths, under each level of run-time checks.

use texla::error::Result;
use texla::gpu::{Gpu, MatVecKernel};
use texla::matrix::Matrix;

use crate::common::{block_on, check_levels, time, webgpu};
use crate::options::Options;

pub fn lcp(gpu: &Gpu, o: &Options) -> Result<()> {
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
