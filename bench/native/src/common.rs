//! What the benchmark's parts share: running texla's futures, timing operations, the run-time
//! checks wgpu can build into shaders, and the WebGPU backend under a [`Gpu`].

use std::time::Instant;

use texla::backend::WebGpu;
use texla::error::Result;
pub use texla::gpu::block_on;
use texla::gpu::Gpu;

/// The WebGPU backend under `gpu`, to tune what only it has.
pub fn webgpu(gpu: &Gpu) -> std::rc::Rc<WebGpu> {
    gpu.backend_as::<WebGpu>()
        .expect("the native benchmark opens WebGPU")
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds of back-to-back work before a measurement. An H100 left idle for about a second
/// (while the CPU makes or checks matrices) drops its SM clock from 1980 MHz to 345-405 and
/// takes up to 300 ms of work to raise it again: an n = 1024 product measured right after two
/// idle seconds made 6.0 TFLOPS, 24 before them
/// (`bench/records/h100/products/overhead-2026-11-26.log`).
const WARM_UP: f64 = 0.5;

/// Seconds per run of `op`: one run to build its pipeline, one timed run to size the batches
/// (about 50 ms each, at most `per_batch` runs), [`WARM_UP`] seconds of runs for the GPU's
/// clock, then `batches` batches of back-to-back runs between waits for the GPU; the median
/// batch. Returns the last result too, for checking.
pub fn time<T, F: FnMut() -> Result<T>>(
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
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < WARM_UP {
        for _ in 0..((0.02 / once).ceil() as usize).max(1) {
            last = op()?;
        }
        block_on(gpu.finish())?;
    }
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
pub fn check_levels() -> Vec<(&'static str, wgpu::ShaderRuntimeChecks)> {
    let mut bounds_only = wgpu::ShaderRuntimeChecks::unchecked();
    bounds_only.bounds_checks = true;
    vec![
        ("wgpu default checks", wgpu::ShaderRuntimeChecks::checked()),
        ("bounds checks only", bounds_only),
        ("no run-time checks", wgpu::ShaderRuntimeChecks::unchecked()),
    ]
}
