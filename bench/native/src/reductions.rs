//! `--reductions`: the sum, the dot product and the largest |element| of an n x n matrix at each
//! n of `--sizes`, by fragment passes and by compute passes, paths in turns for `--rounds` rounds, the median reported in
//! GB/s of input read. Each result is checked against float64 first (the dot-product bound for
//! the sums, exact for the largest |element|); a reduction's matrix stays on the GPU while timed.

use texla::error::Result;
use texla::gpu::{Gpu, ReductionKernel};
use texla::kernels::Reduction;
use texla::reference::{dot_error_bound, Rng};

use crate::common::{block_on, median, time};
use crate::options::Options;

pub fn reductions(gpu: &Gpu, o: &Options) -> Result<()> {
    let kernels = [
        ("passes", ReductionKernel::Passes),
        ("compute", ReductionKernel::Compute),
    ];
    println!(
        "\nreductions, GB/s of input read (median of {} rounds; '!' marks a wrong result)",
        o.rounds
    );
    print!("{:>6} {:>8}", "n", "");
    for (name, _) in &kernels {
        print!(" {name:>20}");
    }
    println!();
    for &n in &o.sizes {
        let mut rng = Rng::new(n as u32);
        let a = rng.matrix(n * n, -1.0, 1.0);
        let b = rng.matrix(n * n, -1.0, 1.0);
        let (ga, gb) = (gpu.upload(&a, n, n)?, gpu.upload(&b, n, n)?);
        let f = |v: &f32| f64::from(*v);
        for kind in [Reduction::Sum, Reduction::Dot, Reduction::MaxAbs] {
            let (exact, bound, inputs) = match kind {
                Reduction::Sum => {
                    let abs: f64 = a.iter().map(|v| f(v).abs()).sum();
                    (a.iter().map(f).sum(), dot_error_bound(n * n, abs), 1)
                }
                Reduction::Dot => {
                    let terms = a.iter().zip(&b).map(|(x, y)| f(x) * f(y));
                    let abs: f64 = terms.clone().map(f64::abs).sum();
                    (terms.sum(), dot_error_bound(n * n, abs), 2)
                }
                Reduction::MaxAbs => (a.iter().map(|v| f(v).abs()).fold(0.0, f64::max), 0.0, 1),
            };
            let other = (kind == Reduction::Dot).then_some(&gb);
            let mut rates = vec![Vec::new(); kernels.len()];
            let mut wrong = vec![false; kernels.len()];
            for _ in 0..o.rounds {
                for (i, (_, kernel)) in kernels.iter().enumerate() {
                    let (seconds, s) = time(gpu, o.batches, 200, || {
                        gpu.reduce_with(*kernel, kind, &ga, other)
                    })?;
                    let got = f64::from(block_on(gpu.read(&s))?[0]);
                    wrong[i] |= (got - exact).abs() > bound;
                    rates[i].push((inputs * n * n * 4) as f64 / seconds / 1e9);
                }
            }
            print!("{n:6} {:>8}", format!("{kind:?}"));
            for (rate, wrong) in rates.into_iter().zip(wrong) {
                if wrong {
                    print!(" {:>20}", "!");
                } else {
                    print!(" {:20.1}", median(rate));
                }
            }
            println!();
        }
        gpu.release_pooled();
    }
    Ok(())
}
