//! Matrix-vector products A x at n = 1024, 4096, 8192: GB/s of A read, by kernel, with and
//! without run-time checks.

use texla::error::Result;
use texla::gpu::{Gpu, MatVecKernel};
use texla::matrix::Matrix;
use texla::reference::{dot_error_bound, Rng};

use crate::common::{block_on, check_levels, time, webgpu};
use crate::options::Options;

pub fn matvec(gpu: &Gpu, o: &Options) -> Result<()> {
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
            let worst = check_matvec(&got, &a, &x, n);
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

/// Worst |y - exact| / bound of A x over all rows.
pub fn check_matvec(y: &[f32], a: &[f32], x: &[f32], n: usize) -> f64 {
    (0..n)
        .map(|i| {
            let (mut e, mut s) = (0.0f64, 0.0f64);
            for j in 0..n {
                let t = f64::from(a[i * n + j]) * f64::from(x[j]);
                e += t;
                s += t.abs();
            }
            (f64::from(y[i]) - e).abs() / dot_error_bound(n, s)
        })
        .fold(
            0.0,
            |m, r| if r.is_nan() { f64::INFINITY } else { m.max(r) },
        )
}
