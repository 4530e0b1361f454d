//! `--float-float`: the speed of float-float (`texla::gpu::DdMatrix`) against float32, natively (issue 18,
//! item 3). For products `A B` (n = 256, 512, 1024, 2048; `--ff-sizes`), `A x` (n = 1024, 4096,
//! 8192; `--ff-mv-sizes`) and the dot product of two vectors of 2^20 elements (`--ff-dot-n`; held
//! as a near-square matrix, as a vector of that length is taller than a texture may be):
//! milliseconds per call of the default float32 path (`Gpu::mul`, `Gpu::mul_vec`, `Gpu::dot`;
//! for products also the teaching kernel, the shape the float-float product has) and of the
//! float-float path (`gpu.float_float()`: `mul`, `mul_vec`, `dot`), and the ratio.
//!
//! The data are float64 values uniform in [-1, 1); float-float holds them split as `hi + lo`,
//! float32 holds `hi` (the same textures). Timing is resident: operands on the GPU before the
//! call, one warm-up, then batches of back-to-back calls between two `gpu.finish()`, the median
//! batch (main.rs's `time`); a dot call includes the read-back of its one value, as both `dot`s
//! return it. Errors: the largest `|got - exact| / sum |terms|` over sampled elements (256 for
//! products and A x, the single value for dot), `exact` and `sum |terms|` computed in
//! float64 from the float64 data, so float32's error includes the rounding of its inputs.

use texla::error::Result;
use texla::gpu::{Gpu, ProductKernel};
use texla::reference::Rng;

use crate::common::{block_on, time};
use crate::options::Options;

/// One line of the table.
struct Line {
    op: String,
    n: usize,
    f32_ms: f64,
    ff_ms: f64,
    /// The float32 teaching kernel (products only).
    teaching_ms: Option<f64>,
    f32_err: f64,
    ff_err: f64,
}

/// `len` float64 values uniform in [-1, 1).
fn data(rng: &mut Rng, len: usize) -> Vec<f64> {
    (0..len).map(|_| 2.0 * rng.next_f64() - 1.0).collect()
}

/// `|got - exact| / sum |terms|` for one element, infinity for NaN.
fn relative(got: f64, exact: f64, abs: f64) -> f64 {
    let e = (got - exact).abs() / abs.max(f64::MIN_POSITIVE);
    if e.is_nan() {
        f64::INFINITY
    } else {
        e
    }
}

/// The elements checked: the corners, then random ones, `samples` in all.
fn sample(rng: &mut Rng, rows: usize, cols: usize, samples: usize) -> Vec<(usize, usize)> {
    let mut v = vec![(0, 0), (rows - 1, cols - 1), (0, cols - 1), (rows - 1, 0)];
    while v.len() < samples {
        v.push((
            (rng.next_f64() * rows as f64) as usize,
            (rng.next_f64() * cols as f64) as usize,
        ));
    }
    v
}

/// Worst error of the sampled elements of `got` (`cols` columns, row-major) against `A B`,
/// A with `k` columns and B `k x cols`, in float64.
fn worst_product(
    got: &[f64],
    a: &[f64],
    b: &[f64],
    (k, cols): (usize, usize),
    points: &[(usize, usize)],
) -> f64 {
    points
        .iter()
        .map(|&(i, j)| {
            let (mut exact, mut abs) = (0.0f64, 0.0f64);
            for p in 0..k {
                let t = a[i * k + p] * b[p * cols + j];
                exact += t;
                abs += t.abs();
            }
            relative(got[i * cols + j], exact, abs)
        })
        .fold(0.0, f64::max)
}

fn widen(v: Vec<f32>) -> Vec<f64> {
    v.into_iter().map(f64::from).collect()
}

fn products(gpu: &Gpu, o: &Options, lines: &mut Vec<Line>) -> Result<()> {
    for &n in &o.ff_sizes {
        lines.push(compare(gpu, o, n, n, 0, 50)?);
    }
    for &n in &o.ff_mv_sizes {
        lines.push(compare(gpu, o, n, 1, 1, 200)?);
    }
    Ok(())
}

/// One line: A (n x n) times B (n x `cols`; a vector where `cols` is 1: A x) in float32 (the
/// default `mul` or `mul_vec`, and for A B also the teaching kernel) and in float-float, timed
/// `reps` calls a batch, from data seeded by `n + seed`.
fn compare(gpu: &Gpu, o: &Options, n: usize, cols: usize, seed: u32, reps: usize) -> Result<Line> {
    let mut rng = Rng::new(n as u32 + seed);
    let (a, b) = (data(&mut rng, n * n), data(&mut rng, n * cols));
    let ff = gpu.float_float();
    let (fa, fb) = (ff.upload(&a, n, n)?, ff.upload(&b, n, cols)?);
    let vector = cols == 1;
    let (f32_s, c32) = time(gpu, o.batches, reps, || match vector {
        true => gpu.mul_vec(&fa.hi, &fb.hi),
        false => gpu.mul(&fa.hi, &fb.hi),
    })?;
    let teaching_ms = match vector {
        true => None,
        false => Some(
            time(gpu, o.batches, reps, || {
                gpu.mul_with(ProductKernel::Teaching, &fa.hi, &fb.hi)
            })?
            .0 * 1e3,
        ),
    };
    let (ff_s, cff) = time(gpu, o.batches, reps, || match vector {
        true => ff.mul_vec(&fa, &fb),
        false => ff.mul(&fa, &fb),
    })?;
    let points = sample(&mut rng, n, cols, 256);
    let c32 = widen(block_on(gpu.read(&c32))?);
    let cff = block_on(ff.read(&cff))?;
    let line = Line {
        op: if vector { "A x" } else { "A B" }.into(),
        n,
        f32_ms: f32_s * 1e3,
        ff_ms: ff_s * 1e3,
        teaching_ms,
        f32_err: worst_product(&c32, &a, &b, (n, cols), &points),
        ff_err: worst_product(&cff, &a, &b, (n, cols), &points),
    };
    report(&line);
    gpu.release_pooled();
    Ok(line)
}

fn dot(gpu: &Gpu, o: &Options, lines: &mut Vec<Line>) -> Result<()> {
    let n = o.ff_dot_n.max(1);
    // A near-square shape of at least n elements: 2^20 is 1024 x 1024.
    let cols = 1usize << (n.ilog2() / 2);
    let rows = n.div_ceil(cols);
    let len = rows * cols;
    let mut rng = Rng::new(n as u32 + 2);
    let (x, y) = (data(&mut rng, len), data(&mut rng, len));
    let ff = gpu.float_float();
    let (fx, fy) = (ff.upload(&x, rows, cols)?, ff.upload(&y, rows, cols)?);
    let (f32_s, d32) = time(gpu, o.batches, 50, || block_on(gpu.dot(&fx.hi, &fy.hi)))?;
    let (ff_s, dff) = time(gpu, o.batches, 50, || block_on(ff.dot(&fx, &fy)))?;
    let (exact, abs) = x.iter().zip(&y).fold((0.0f64, 0.0f64), |(e, s), (a, b)| {
        (e + a * b, s + (a * b).abs())
    });
    lines.push(Line {
        op: format!("dot ({rows} x {cols})"),
        n: len,
        f32_ms: f32_s * 1e3,
        ff_ms: ff_s * 1e3,
        teaching_ms: None,
        f32_err: relative(f64::from(d32), exact, abs),
        ff_err: relative(dff, exact, abs),
    });
    report(lines.last().expect("just pushed"));
    gpu.release_pooled();
    Ok(())
}

/// Prints one line as it is measured.
fn report(l: &Line) {
    println!(
        "{} n={}: float32 {:.4} ms, float-float {:.4} ms ({:.1}x); errors {:.1e} and {:.1e}",
        l.op,
        l.n,
        l.f32_ms,
        l.ff_ms,
        l.ff_ms / l.f32_ms,
        l.f32_err,
        l.ff_err
    );
}

/// Runs the three tables' measurements and prints the table.
pub fn float_float(gpu: &Gpu, o: &Options) -> Result<()> {
    println!(
        "\nFloat-float against float32, resident: ms per call, median of {} batches",
        o.batches
    );
    let mut lines = Vec::new();
    products(gpu, o, &mut lines)?;
    dot(gpu, o, &mut lines)?;
    println!(
        "\n| op | n | float32 ms | float-float ms | ff / f32 | float32 teaching ms | ff / teaching | \
         float32 max rel. error | float-float max rel. error |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for l in &lines {
        let (teaching, over_teaching) = match l.teaching_ms {
            Some(t) => (format!("{t:.4}"), format!("{:.1}", l.ff_ms / t)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {:.4} | {:.4} | {:.1} | {teaching} | {over_teaching} | {:.1e} | {:.1e} |",
            l.op,
            l.n,
            l.f32_ms,
            l.ff_ms,
            l.ff_ms / l.f32_ms,
            l.f32_err,
            l.ff_err
        );
    }
    println!(
        "(errors: largest |got - exact| / sum |terms| over sampled elements, against float64 \
         from the float64 data; float32 reads the data rounded to float32)"
    );
    Ok(())
}
