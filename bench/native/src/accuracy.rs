//! `--accuracy`: the default product (`Gpu::mul`, what `matmul` runs) at each `--sizes` n, its
//! speed and its error against float64 in the measure of the Dawn bench
//! (`bench/dawn/bench.mjs`'s "rel. error": max |C - C64| / max |C64| over 64 sampled elements),
//! over 1024 sampled elements too, and as the worst fraction of texla's error bound; its speed
//! with wgpu's run-time checks (the default) beside it.

use texla::error::Result;
use texla::gpu::Gpu;
use texla::reference::{dot_error_bound, Rng};

use crate::common::{block_on, time, webgpu};
use crate::options::Options;
use crate::products::tflops;

/// Of C = A B (m x k times k x n, float64 from the float32 data), over `samples` sampled
/// elements: (max |C - C64| / max |C64|, worst |C - C64| / bound).
pub fn errors(
    c: &[f32],
    a: &[f32],
    b: &[f32],
    (m, k, n): (usize, usize, usize),
    samples: usize,
) -> (f64, f64) {
    let mut rng = Rng::new(0x5eed ^ m as u32);
    let (mut err, mut scale, mut worst) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..samples {
        let i = ((rng.next_f64() * m as f64) as usize).min(m - 1);
        let j = ((rng.next_f64() * n as f64) as usize).min(n - 1);
        let (mut exact, mut abs) = (0.0f64, 0.0f64);
        for p in 0..k {
            let t = f64::from(a[i * k + p]) * f64::from(b[p * n + j]);
            exact += t;
            abs += t.abs();
        }
        let e = (f64::from(c[i * n + j]) - exact).abs();
        let e = if e.is_nan() { f64::INFINITY } else { e };
        err = err.max(e);
        scale = scale.max(exact.abs());
        worst = worst.max(e / dot_error_bound(k, abs).max(f64::MIN_POSITIVE));
    }
    (err / scale.max(f64::MIN_POSITIVE), worst)
}

pub fn accuracy(gpu: &Gpu, o: &Options) -> Result<()> {
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::unchecked());
    println!(
        "default product ({:?}), no run-time checks, median of {} batches; entries in [-1, 1)",
        gpu.product_kernel().0,
        o.batches
    );
    println!(
        "    n         ms  TFLOPS  rel. error (64)  rel. error (1024)  worst of bound  TFLOPS checked"
    );
    for &n in &o.sizes {
        let mut rng = Rng::new(n as u32);
        let a = rng.matrix(n * n, -1.0, 1.0);
        let b = rng.matrix(n * n, -1.0, 1.0);
        let (ga, gb) = (gpu.upload(&a, n, n)?, gpu.upload(&b, n, n)?);
        let (seconds, c) = time(gpu, o.batches, 50, || gpu.mul(&ga, &gb))?;
        let data = block_on(gpu.read(&c))?;
        let (rel64, _) = errors(&data, &a, &b, (n, n, n), 64);
        let (rel1024, worst) = errors(&data, &a, &b, (n, n, n), 1024);
        webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
        let (checked, _) = time(gpu, o.batches, 50, || gpu.mul(&ga, &gb))?;
        webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::unchecked());
        println!(
            "{n:5} {:10.3} {:7.2}  {rel64:15.2e}  {rel1024:17.2e}  {worst:14.2e}  {:14.2}",
            seconds * 1e3,
            tflops(n, seconds),
            tflops(n, checked)
        );
        drop((ga, gb, c));
        gpu.release_pooled();
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    Ok(())
}
