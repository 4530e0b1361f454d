//! `--mulvec-sweep`: Fujimoto's claim, stable A x performance for every matrix order from 16 to
//! 12800 (CUBLAS 1.1 dipped off multiples of 16), for texla's default A x (`Gpu::mul_vec`, the
//! JavaScript `mulVec`: the compute kernel on a hardware adapter, the blocked fragment path
//! elsewhere).
//!
//! Orders: every order from 16 to `--sweep-dense-max` (2048), then windows of 17 consecutive
//! orders, c - 8 ..= c + 8, around every multiple c of 256 up to `--sweep-max` (12800): 2033 +
//! 706 orders. Each window holds one multiple of 16 (c), two "half" orders (c +- 8, where
//! Fujimoto's paper saw CUBLAS at its slowest) and 14 others.
//!
//! A is resident: one `sweep-max` x `sweep-max` matrix of uniform [-1, 1) values is uploaded
//! once, and each order's A is its top-left n x n corner, copied on the GPU by one pass of a
//! small kernel of this file (a texel of the corner is the texel at the same place of the big
//! texture), so no order pays an n^2 upload (12800^2 floats are 655 MB). x (n values) is
//! uploaded per order. Time per product: products back to back in 5 batches of about 2 ms each
//! between waits for the GPU, the median batch; GB/s = 4 n^2 bytes of A / time (x and y not
//! counted). Rows 0 and n - 1 of every product are checked against float64.

use std::time::Instant;

use texla::error::Result;
use texla::gpu::Gpu;
use texla::kernels::{Kernel, Program};
use texla::layout::Layout;
use texla::matrix::Matrix;
use texla::reference::{dot_error_bound, Rng};

use crate::common::{block_on, median};
use crate::options::Options;

/// The top-left corner of input `a`, as large as the output (rows past it masked to zero).
fn corner_kernel() -> Kernel {
    Kernel {
        name: "corner".into(),
        inputs: &["a"],
        wgsl: "fn kernel(texel: vec2<i32>) -> vec4<f32> {\n    return mask_padding(texel.y, a_texel(texel.x, texel.y));\n}\n".into(),
        glsl: "vec4 kernel(ivec2 texel) {\n    return mask_padding(texel.y, a_texel(texel.x, texel.y));\n}\n".into(),
        outputs: 1,
        compute: None,
    }
}

/// The path `Gpu::mul_vec` takes here.
fn path(gpu: &Gpu) -> &'static str {
    match gpu.product_kernel().0 {
        texla::gpu::ProductKernel::Compute { .. } => "compute kernel (MatVecKernel::Compute)",
        _ => "blocked fragment path (MatVecKernel::Blocked)",
    }
}

/// The orders of the sweep: every order from 16 to `dense_max`, then c - 8 ..= c + 8 around
/// each multiple c of 256 above it, all at most `max`.
pub fn orders(dense_max: usize, max: usize) -> Vec<usize> {
    let mut orders: Vec<usize> = (16..=dense_max.min(max)).collect();
    let mut c = (dense_max / 256 + 1) * 256;
    while c - 8 <= max {
        orders.extend((c - 8..=(c + 8).min(max)).filter(|&n| n > dense_max));
        c += 256;
    }
    orders
}

/// Seconds per product of `gpu.mul_vec(a, x)`, resident: a warm-up, a trial batch to size the
/// batches (about 2 ms each, 4 to 400 products), then the median of 5 batches.
fn seconds_per_product(gpu: &Gpu, a: &Matrix, x: &Matrix) -> Result<(f64, Matrix)> {
    let mut y = gpu.mul_vec(a, x)?;
    block_on(gpu.finish())?;
    let batch = |count: usize, y: &mut Matrix| -> Result<f64> {
        let t0 = Instant::now();
        for _ in 0..count {
            *y = gpu.mul_vec(a, x)?;
        }
        block_on(gpu.finish())?;
        Ok(t0.elapsed().as_secs_f64() / count as f64)
    };
    let trial = batch(4, &mut y)?;
    let count = ((2e-3 / trial).ceil() as usize).clamp(4, 400);
    let mut samples = Vec::new();
    for _ in 0..5 {
        samples.push(batch(count, &mut y)?);
    }
    Ok((median(samples), y))
}

/// Measured orders and GB/s, one band summary and the dips, printed; returns the JSON rows.
pub fn sweep(gpu: &Gpu, o: &Options) -> Result<()> {
    let orders = orders(o.sweep_dense_max, o.sweep_max);
    let big_n = *orders.last().expect("at least order 16");
    println!(
        "\nFujimoto's A x at {} orders from 16 to {big_n} (every order to {}, then c-8..c+8 around multiples of 256), texla's default A x ({}), resident; GB/s = 4 n^2 / time",
        orders.len(),
        o.sweep_dense_max.min(big_n),
        path(gpu)
    );
    let t0 = Instant::now();
    let data = Rng::new(12800).matrix(big_n * big_n, -1.0, 1.0);
    let big = gpu.upload(&data, big_n, big_n)?;
    block_on(gpu.finish())?;
    println!(
        "uploaded the {big_n} x {big_n} matrix once in {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    let max_side = gpu.capabilities().max_texture_size;
    let mut rng = Rng::new(3);
    let (mut gbs, mut worst) = (Vec::new(), 0.0f64);
    let t0 = Instant::now();
    for &n in &orders {
        let a = gpu.run(
            Program::new(
                corner_kernel(),
                vec![big.layout()],
                Layout::new(n, n, max_side)?,
            ),
            &[&big],
        )?;
        let xs = rng.matrix(n, -1.0, 1.0);
        let x = gpu.upload(&xs, n, 1)?;
        let (seconds, y) = seconds_per_product(gpu, &a, &x)?;
        let got = block_on(gpu.read(&y))?;
        for i in [0, n - 1] {
            let (mut exact, mut sum) = (0.0f64, 0.0f64);
            for (j, xj) in xs.iter().enumerate() {
                let t = f64::from(data[i * big_n + j]) * f64::from(*xj);
                exact += t;
                sum += t.abs();
            }
            let ratio = (f64::from(got[i]) - exact).abs() / dot_error_bound(n, sum);
            worst = worst.max(if ratio.is_nan() { f64::INFINITY } else { ratio });
        }
        gbs.push(4.0 * (n * n) as f64 / seconds / 1e9);
        drop((a, x, y));
        gpu.release_pooled();
    }
    println!(
        "{} orders in {:.1} s; every product checked on rows 0 and n-1: worst error {worst:.2e} of the bound ({})",
        orders.len(),
        t0.elapsed().as_secs_f64(),
        if worst <= 1.0 { "ok" } else { "WRONG" }
    );
    report(&orders, &gbs);
    let json = format!(
        "{{\n  \"what\": \"Fujimoto's A x at every order (native_bench --mulvec-sweep): texla's default A x, resident, GB/s = 4 n^2 / time per product\",\n  \"adapter\": \"{}\",\n  \"path\": \"{}\",\n  \"worstErrorOfBound\": {worst:.3e},\n  \"orders\": [{}],\n  \"gbs\": [{}]\n}}\n",
        gpu.capabilities().adapter.replace('"', "'"),
        path(gpu),
        orders.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
        gbs.iter().map(|g| format!("{g:.4}")).collect::<Vec<_>>().join(", ")
    );
    let path = std::path::Path::new(&o.out).join("native-mulvec-sweep.json");
    std::fs::write(&path, json).map_err(|e| {
        texla::error::Error::Argument(format!("cannot write {}: {e}", path.display()))
    })?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The bands of the summary: [lo, hi] orders.
const BANDS: [(usize, usize); 7] = [
    (16, 63),
    (64, 255),
    (256, 1023),
    (1024, 2048),
    (2049, 4096),
    (4097, 8192),
    (8193, 12800),
];

/// Prints min / median / max GB/s per band (all orders, multiples of 16, the others), the
/// orders of some powers of two and their neighbours, and the 8 largest dips: an order's GB/s
/// below the mean of its two neighbours' (orders n - 1 and n + 1, both measured).
fn report(orders: &[usize], gbs: &[f64]) {
    let stats = |v: Vec<f64>| {
        if v.is_empty() {
            return "-".to_string();
        }
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        format!("{lo:8.2} {:8.2} {hi:8.2}", median(v))
    };
    println!(
        "{:>12} {:>6}  {:>26}  {:>26}  {:>26}",
        "orders", "count", "GB/s min/median/max, all", "multiples of 16", "other orders"
    );
    for (lo, hi) in BANDS {
        let band: Vec<(usize, f64)> = orders
            .iter()
            .zip(gbs)
            .filter(|(n, _)| (lo..=hi).contains(*n))
            .map(|(n, g)| (*n, *g))
            .collect();
        if band.is_empty() {
            continue;
        }
        let pick = |keep: &dyn Fn(usize) -> bool| {
            band.iter()
                .filter(|(n, _)| keep(*n))
                .map(|(_, g)| *g)
                .collect::<Vec<_>>()
        };
        println!(
            "{:>12} {:6}  {:>26}  {:>26}  {:>26}",
            format!("{lo}-{hi}"),
            band.len(),
            stats(pick(&|_| true)),
            stats(pick(&|n| n % 16 == 0)),
            stats(pick(&|n| n % 16 != 0))
        );
    }
    let at = |n: usize| orders.iter().position(|&m| m == n).map(|i| gbs[i]);
    let mut dips: Vec<(usize, f64, f64)> = orders
        .iter()
        .zip(gbs)
        .filter_map(|(&n, &g)| {
            let around = (at(n - 1)? + at(n + 1)?) / 2.0;
            Some((n, g, around))
        })
        .collect();
    dips.sort_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)));
    println!("largest dips below the neighbours' mean (order: GB/s, neighbours' mean, dip):");
    for (n, g, around) in dips.iter().take(8) {
        println!(
            "  n = {n:5}: {g:8.2} GB/s, neighbours {around:8.2}, {:5.1}% below",
            100.0 * (1.0 - g / around)
        );
    }
}
