//! `--float16`: float16 storage against float32 at each `--sizes` n: A·x (the default
//! `mul_vec`) and the product with both operands uploaded as float32 (the default product) and
//! as float16 (the tiled compute kernel, and where the device has cooperative matrices the
//! tensor-core kernel, what `Auto` takes for float16 there), paths in turns over `--batches`
//! rounds (median), no run-time checks; each one's error against float64 of the float32 data
//! (what the user had), so that float16's rounding shows: the `--accuracy` measure, over 1024
//! sampled elements of y and 64 of C. The tensor path's error is also given against float64 of
//! the float16 values (its own arithmetic's).

use texla::error::Result;
use texla::gpu::{float16 as rounded, Format, Gpu, ProductKernel};
use texla::matrix::Matrix;
use texla::reference::Rng;

use crate::accuracy::errors;
use crate::common::{block_on, median, time, webgpu};
use crate::options::Options;
use crate::products::tflops;

pub fn float16(gpu: &Gpu, o: &Options) -> Result<()> {
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::unchecked());
    println!(
        "float16 storage against float32 ({:?}), no run-time checks, median of {} rounds in \
         turns; entries in [-1, 1); GB/s of A x count 4 n^2 bytes (float16 reads half)",
        gpu.product_kernel().0,
        o.batches
    );
    let tensor = gpu.capabilities().tensor;
    println!("cooperative matrices (tensor cores): {tensor}");
    println!(
        "    n  A x f32 us  GB/s   f16 us  GB/s  f16/f32   error f32  error f16 | product f32 TFLOPS  f16  f16/f32  error f32  error f16 | tensor TFLOPS  /f32  error  vs f16 values"
    );
    for &n in &o.sizes {
        let mut rng = Rng::new(n as u32 + 16);
        let a = rng.matrix(n * n, -1.0, 1.0);
        let b = rng.matrix(n * n, -1.0, 1.0);
        let x = rng.matrix(n, -1.0, 1.0);
        let up = |d: &[f32], cols, f| gpu.upload_as(d, (d.len() / cols, cols), f);
        let (a32, b32, x32) = (
            up(&a, n, Format::F32)?,
            up(&b, n, Format::F32)?,
            up(&x, 1, Format::F32)?,
        );
        let (a16, b16, x16) = (
            up(&a, n, Format::F16)?,
            up(&b, n, Format::F16)?,
            up(&x, 1, Format::F16)?,
        );
        let mut paths: Vec<Box<dyn Fn() -> Result<Matrix>>> = vec![
            Box::new(|| gpu.mul_vec(&a32, &x32)),
            Box::new(|| gpu.mul_vec(&a16, &x16)),
            Box::new(|| gpu.mul(&a32, &b32)),
            Box::new(|| gpu.mul_with(ProductKernel::COMPUTE, &a16, &b16)),
        ];
        if tensor {
            paths.push(Box::new(|| gpu.mul_with(ProductKernel::Tensor, &a16, &b16)));
        }
        let mut seconds = vec![vec![]; paths.len()];
        let mut results = vec![None; paths.len()];
        for round in 0..o.batches {
            for i in 0..paths.len() {
                let p = (round + i) % paths.len();
                let (s, r) = time(gpu, 3, 50, &paths[p])?;
                seconds[p].push(s);
                results[p] = Some(r);
            }
        }
        let s: Vec<f64> = seconds.into_iter().map(median).collect();
        let read = |i: usize| block_on(gpu.read(results[i].as_ref().expect("ran")));
        let (y32, y16, c32, c16) = (read(0)?, read(1)?, read(2)?, read(3)?);
        let gbs = |s: f64| (4 * n * n) as f64 / s / 1e9;
        let tensor_cols = if tensor {
            let c = read(4)?;
            let (a16v, b16v) = (rounded(&a)?, rounded(&b)?);
            format!(
                " | {:13.2} {:5.2}x {:6.2e} {:6.2e}",
                tflops(n, s[4]),
                s[2] / s[4],
                errors(&c, &a, &b, (n, n, n), 64).0,
                errors(&c, &a16v, &b16v, (n, n, n), 64).0
            )
        } else {
            String::new()
        };
        println!(
            "{n:5} {:11.1} {:5.0} {:8.1} {:5.0} {:7.2}x {:10.2e} {:10.2e} | {:18.2} {:5.2} {:7.2}x {:10.2e} {:10.2e}{tensor_cols}",
            s[0] * 1e6,
            gbs(s[0]),
            s[1] * 1e6,
            gbs(s[1]),
            s[0] / s[1],
            errors(&y32, &a, &x, (n, n, 1), 1024).0,
            errors(&y16, &a, &x, (n, n, 1), 1024).0,
            tflops(n, s[2]),
            tflops(n, s[3]),
            s[2] / s[3],
            errors(&c32, &a, &b, (n, n, n), 64).0,
            errors(&c16, &a, &b, (n, n, n), 64).0,
        );
        drop(paths);
        drop((a32, b32, x32, a16, b16, x16, results));
        gpu.release_pooled();
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    Ok(())
}
