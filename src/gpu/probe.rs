//! The precision probe: two tiny passes at open that check the GPU adds, multiplies and stores
//! as IEEE 754 float32 does (round to nearest even at 2^24, exact integer products, NaN and
//! infinity carried through, all 24 bits kept by the render target or storage texture). Every
//! check against float64 in texla assumes this; a platform that computes in less (half-float
//! render targets, flushed or clamped specials) is reported, and the page flags it.

use super::Gpu;
use crate::error::Result;
use crate::kernels::{Expr, Func2};

/// One check: its name, `a`, `b`, and the float32 results of `a + b` and `a * b` (`None`: not
/// checked).
type Case = (&'static str, f32, f32, Option<f32>, Option<f32>);

/// The cases. NaN in an expectation means "any NaN".
const CASES: [Case; 8] = [
    (
        "2^24 + 1 rounds to even (down)",
        16_777_216.0,
        1.0,
        Some(16_777_216.0),
        None,
    ),
    (
        "2^24 + 3 rounds to even (up)",
        16_777_218.0,
        1.0,
        Some(16_777_220.0),
        None,
    ),
    (
        "4095 x 4097 is exact",
        4095.0,
        4097.0,
        None,
        Some(16_777_215.0),
    ),
    (
        "4097 x 4097 rounds to even",
        4097.0,
        4097.0,
        None,
        Some(16_785_408.0),
    ),
    (
        "1 + 2^-23 keeps its last bit",
        1.0 + f32::EPSILON,
        0.0,
        Some(1.0 + f32::EPSILON),
        None,
    ),
    (
        "NaN propagates",
        f32::NAN,
        1.0,
        Some(f32::NAN),
        Some(f32::NAN),
    ),
    (
        "infinity propagates",
        f32::INFINITY,
        2.0,
        Some(f32::INFINITY),
        Some(f32::INFINITY),
    ),
    (
        "inf - inf is NaN",
        f32::INFINITY,
        f32::NEG_INFINITY,
        Some(f32::NAN),
        None,
    ),
];

/// What the probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct Precision {
    /// The names of the checks that failed, with what came back; empty on an IEEE float32 GPU.
    pub failed: Vec<String>,
    /// How many checks ran.
    pub checks: usize,
}

impl Precision {
    /// Whether every check passed.
    pub fn ieee(&self) -> bool {
        self.failed.is_empty()
    }

    /// Judges the GPU's sums and products of the cases' operands.
    fn judge(sums: &[f32], products: &[f32]) -> Precision {
        let same = |got: f32, want: f32| {
            if want.is_nan() {
                got.is_nan()
            } else {
                got.to_bits() == want.to_bits()
            }
        };
        let mut failed = Vec::new();
        for (i, &(name, _, _, sum, product)) in CASES.iter().enumerate() {
            for (want, got, op) in [(sum, sums[i], "+"), (product, products[i], "x")] {
                if let Some(want) = want.filter(|&w| !same(got, w)) {
                    failed.push(format!("{name} (a {op} b gave {got:?}, not {want:?})"));
                }
            }
        }
        let checks = CASES
            .iter()
            .map(|c| usize::from(c.3.is_some()) + usize::from(c.4.is_some()));
        Precision {
            failed,
            checks: checks.sum(),
        }
    }
}

impl Gpu {
    /// Runs the precision probe (see the module's text): `a + b` and `a * b` over the cases,
    /// read back.
    pub async fn probe_precision(&self) -> Result<Precision> {
        let a: Vec<f32> = CASES.iter().map(|c| c.1).collect();
        let b: Vec<f32> = CASES.iter().map(|c| c.2).collect();
        let (a, b) = (
            self.upload(&a, 1, CASES.len())?,
            self.upload(&b, 1, CASES.len())?,
        );
        let op = |f| Expr::call2(f, Expr::Input(0), Expr::Input(1));
        let sums = self.map(&op(Func2::Add), &[&a, &b])?;
        let products = self.map(&op(Func2::Mul), &[&a, &b])?;
        let (sums, products) = (self.read(&sums).await?, self.read(&products).await?);
        Ok(Precision::judge(&sums, &products))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ieee_results_pass_and_a_flushed_nan_or_a_half_float_target_fails() {
        let exact =
            |op: fn(f32, f32) -> f32| CASES.iter().map(|c| op(c.1, c.2)).collect::<Vec<_>>();
        let (sums, products) = (exact(|a, b| a + b), exact(|a, b| a * b));
        let ok = Precision::judge(&sums, &products);
        assert!(ok.ieee(), "{:?}", ok.failed);
        assert_eq!(ok.checks, 10);
        // NaN made 0, as some GPUs do, and results kept to 11 bits, as a half-float target does.
        let flushed: Vec<f32> = sums
            .iter()
            .map(|s| if s.is_nan() { 0.0 } else { *s })
            .collect();
        let f = Precision::judge(&flushed, &products);
        assert_eq!(f.failed.len(), 2, "{:?}", f.failed);
        assert!(f.failed[0].starts_with("NaN propagates (a + b gave 0.0"));
        let half = |v: &[f32]| {
            v.iter()
                .map(|x| f32::from_bits(x.to_bits() & !0x1fff))
                .collect::<Vec<_>>()
        };
        let h = Precision::judge(&half(&sums), &half(&products));
        assert!(
            h.failed.iter().any(|f| f.starts_with("1 + 2^-23")),
            "{:?}",
            h.failed
        );
        assert!(
            h.failed.iter().any(|f| f.starts_with("4095 x 4097")),
            "{:?}",
            h.failed
        );
    }
}
