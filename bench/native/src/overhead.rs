//! `--overhead`: where a call's fixed cost goes, and what a process's history does to speed.
//!
//! For A x and the default product at each `--sizes` n: microseconds per call with the GPU
//! waited for once per batch (what `time` reports), the CPU's part of that (the batch's calls
//! alone, before the wait), and one call on an idle GPU with its wait (a round trip). Where the
//! CPU's part reaches the batch's time, the calls are bound by recording and submission, not by
//! the kernel.
//!
//! Then the history: the default product at n = 1024 before and after steps that may slow it
//! (uploading and freeing n = 8192 matrices without a product, an 8192 product, a pause of two
//! seconds, a 2048 product), each measured the same way, so a slowdown is pinned to its step.

use std::time::{Duration, Instant};

use texla::error::Result;
use texla::gpu::Gpu;
use texla::matrix::Matrix;
use texla::reference::Rng;

use crate::common::{block_on, median, time};
use crate::options::Options;
use crate::products::tflops;

pub fn overhead(gpu: &Gpu, o: &Options) -> Result<()> {
    println!("\nus per call: batch (GPU waited for once a batch) / CPU part of the batch / one call alone");
    for &n in &o.sizes {
        let mut rng = Rng::new(n as u32);
        let a = gpu.upload(&rng.matrix(n * n, -1.0, 1.0), n, n)?;
        let b = gpu.upload(&rng.matrix(n * n, -1.0, 1.0), n, n)?;
        let x = gpu.upload(&rng.matrix(n, -1.0, 1.0), n, 1)?;
        let ops: [(&str, &dyn Fn() -> Result<Matrix>); 2] = [
            ("A x", &|| gpu.mul_vec(&a, &x)),
            ("A B", &|| gpu.mul(&a, &b)),
        ];
        for (name, op) in ops {
            let (batch, _) = time(gpu, o.batches, 200, op)?;
            let calls = ((0.02 / batch) as usize).clamp(4, 400);
            let (mut cpu, mut alone) = (Vec::new(), Vec::new());
            for _ in 0..o.batches {
                let t0 = Instant::now();
                for _ in 0..calls {
                    op()?;
                }
                cpu.push(t0.elapsed().as_secs_f64() / calls as f64);
                block_on(gpu.finish())?;
                let t0 = Instant::now();
                op()?;
                block_on(gpu.finish())?;
                alone.push(t0.elapsed().as_secs_f64());
            }
            let (cpu, alone) = (median(cpu), median(alone));
            let rate = if name == "A x" {
                format!("{:8.1} GB/s", (n * n * 4) as f64 / batch / 1e9)
            } else {
                format!("{:8.2} TFLOPS", tflops(n, batch))
            };
            println!(
                "n={n:5} {name}: {:9.1} / {:9.1} / {:9.1} us  {rate}  ({calls} calls a batch)",
                batch * 1e6,
                cpu * 1e6,
                alone * 1e6
            );
        }
        gpu.release_pooled();
    }
    history(gpu, o)
}

/// The default product at n = 1024 between steps that may leave a slowdown behind, then
/// products with 8192 in one dimension at a time.
fn history(gpu: &Gpu, o: &Options) -> Result<()> {
    println!("\nhistory: the default product at n = 1024 (TFLOPS) after each step");
    let product = |(m, k, n): (usize, usize, usize)| -> Result<f64> {
        let mut rng = Rng::new((m + k + n) as u32);
        let a = gpu.upload(&rng.matrix(m * k, -1.0, 1.0), m, k)?;
        let b = gpu.upload(&rng.matrix(k * n, -1.0, 1.0), k, n)?;
        let (seconds, _) = time(gpu, o.batches, 200, || gpu.mul(&a, &b))?;
        Ok(2.0 * (m * k * n) as f64 / seconds / 1e12)
    };
    let small = |step: &str| -> Result<()> {
        println!("  {step:44} 1024: {:6.2}", product((1024, 1024, 1024))?);
        Ok(())
    };
    small("fresh")?;
    {
        let big = Rng::new(3).matrix(8192 * 8192, -1.0, 1.0);
        let a = gpu.upload(&big, 8192, 8192)?;
        let b = gpu.upload(&big, 8192, 8192)?;
        block_on(gpu.finish())?;
        drop((a, b));
        gpu.release_pooled();
    }
    small("after uploading and freeing two 8192s")?;
    println!(
        "  {:44} 8192: {:6.2}",
        "an 8192 product",
        product((8192, 8192, 8192))?
    );
    small("right after it")?;
    std::thread::sleep(Duration::from_secs(2));
    small("after a pause of 2 s")?;
    println!("\nproducts m x k times k x n (TFLOPS; A is k texels wide, B and C n)");
    for shape in [
        (8000, 8000, 8000),
        (8192, 8192, 8192),
        (8000, 8000, 8192),
        (8000, 8192, 8000),
        (8192, 8000, 8000),
        (8000, 8000, 8000),
        (4096, 4096, 4096),
        (4096, 4096, 4000),
        (4000, 4000, 4000),
    ] {
        println!("  {shape:?}: {:6.2}", product(shape)?);
        gpu.release_pooled();
    }
    Ok(())
}
