//! Float64 reference math on the CPU, the yardstick every GPU result is checked against.

/// A small seeded generator (mulberry32), identical to the one in `www/reference/products.js`, so the page
/// and the tests draw the same matrices from the same seed.
#[derive(Debug, Clone)]
pub struct Rng(u32);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u32) -> Self {
        Rng(seed)
    }

    /// The next value, uniform in [0, 1), with 32 random bits.
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x6D2B_79F5);
        let mut t = self.0;
        t = (t ^ (t >> 15)).wrapping_mul(t | 1);
        t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
        f64::from(t ^ (t >> 14)) / 4_294_967_296.0
    }

    /// `len` values uniform in [lo, hi), rounded to f32.
    pub fn matrix(&mut self, len: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..len)
            .map(|_| (f64::from(lo) + (f64::from(hi) - f64::from(lo)) * self.next_f64()) as f32)
            .collect()
    }

    /// `len` integers uniform in [lo, hi], as f32.
    pub fn integers(&mut self, len: usize, lo: i32, hi: i32) -> Vec<f32> {
        let span = f64::from(hi - lo + 1);
        (0..len)
            .map(|_| (lo + (span * self.next_f64()) as i32) as f32)
            .collect()
    }
}

/// `C = A * B` in float64 for row-major `a` (m x k) and `b` (k x n); returns `(C, S)` where
/// `S[i][j] = sum_p |a_ip * b_pj|` is the magnitude that bounds the rounding error of `C[i][j]`.
pub fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(a.len(), m * k);
    assert_eq!(b.len(), k * n);
    let mut c = vec![0.0f64; m * n];
    let mut s = vec![0.0f64; m * n];
    for i in 0..m {
        for p in 0..k {
            let aip = f64::from(a[i * k + p]);
            for j in 0..n {
                let prod = aip * f64::from(b[p * n + j]);
                c[i * n + j] += prod;
                s[i * n + j] += prod.abs();
            }
        }
    }
    (c, s)
}

/// The transpose of row-major `data` (`rows x cols`).
pub fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0; data.len()];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = data[i * cols + j];
        }
    }
    t
}

/// Unit roundoff of f32: 2^-24.
pub const F32_UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;

/// Bound on `|C_gpu - C_exact|` for one element of a float32 dot product of length `k`:
/// `2 (k + 2) u sum|a_ip b_pj|`. The classic bound is `k u sum|a b|` for any summation order;
/// the factor 2 and the +2 leave room for a GPU that rounds products and sums separately and for
/// the inputs' own conversions, so a correct kernel never comes near it and a wrong one (a
/// dropped or doubled term) is far beyond it.
pub fn dot_error_bound(k: usize, abs_sum: f64) -> f64 {
    2.0 * (k as f64 + 2.0) * F32_UNIT_ROUNDOFF * abs_sum
}

/// Element errors of a GPU result against the float64 reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Largest |gpu - exact|.
    pub max_abs: f64,
    /// Largest |gpu - exact| / max |exact| (relative to the result's scale).
    pub max_rel: f64,
    /// Largest ratio |gpu - exact| / bound over all elements: <= 1 means every element is within bound.
    pub worst_bound_ratio: f64,
    /// Index of the element with the worst bound ratio.
    pub worst_index: usize,
}

/// Compares `gpu` with `exact` element by element, with `bound[i]` the allowed error of element i.
/// A NaN anywhere makes `worst_bound_ratio` infinite.
pub fn compare(gpu: &[f32], exact: &[f64], bound: &[f64]) -> Comparison {
    assert_eq!(gpu.len(), exact.len());
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut out = Comparison {
        max_abs: 0.0,
        max_rel: 0.0,
        worst_bound_ratio: 0.0,
        worst_index: 0,
    };
    for (i, (&g, &e)) in gpu.iter().zip(exact).enumerate() {
        let err = (f64::from(g) - e).abs();
        let ratio = if err.is_nan() {
            f64::INFINITY
        } else if err == 0.0 {
            0.0
        } else {
            err / bound[i]
        };
        out.max_abs = out
            .max_abs
            .max(if err.is_nan() { f64::INFINITY } else { err });
        if ratio > out.worst_bound_ratio {
            out.worst_bound_ratio = ratio;
            out.worst_index = i;
        }
    }
    out.max_rel = if scale > 0.0 {
        out.max_abs / scale
    } else {
        out.max_abs
    };
    out
}

/// Projected Jacobi for the dense LCP in float64, the GPU's iteration: from x = 0, `iterations`
/// times x <- max(x + omega D (A x + b), 0) with D = diag(A)^-1 (omega negative, the seed's
/// convention). `a` is `n x n` row-major.
pub fn lcp_jacobi(a: &[f32], b: &[f32], n: usize, omega: f64, iterations: usize) -> Vec<f64> {
    let mut x = vec![0.0f64; n];
    for _ in 0..iterations {
        x = (0..n)
            .map(|i| {
                let w: f64 = (0..n).map(|j| f64::from(a[i * n + j]) * x[j]).sum();
                (x[i] + (f64::from(b[i]) + w) * omega / f64::from(a[i * n + i])).max(0.0)
            })
            .collect();
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_mulberry32() {
        // First outputs of mulberry32(1), as computed by the JavaScript original.
        let mut r = Rng::new(1);
        let first: Vec<f64> = (0..3).map(|_| r.next_f64()).collect();
        assert!((first[0] - 0.6270739405881613).abs() < 1e-15, "{first:?}");
        assert!((first[1] - 0.002735721180215478).abs() < 1e-15, "{first:?}");
        assert!((first[2] - 0.5274470399599522).abs() < 1e-15, "{first:?}");
    }

    #[test]
    fn rng_ranges() {
        let mut r = Rng::new(7);
        assert!(r
            .matrix(1000, -1.0, 1.0)
            .iter()
            .all(|v| (-1.0..1.0).contains(v)));
        let ints = r.integers(1000, -3, 3);
        assert!(ints
            .iter()
            .all(|v| v.fract() == 0.0 && (-3.0..=3.0).contains(v)));
        assert!(ints.contains(&-3.0) && ints.contains(&3.0));
    }

    #[test]
    fn transpose_moves_every_element() {
        let t = transpose(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3);
        assert_eq!(t, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(transpose(&t, 3, 2), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn matmul_small_by_hand() {
        // [1 2 3; 4 5 6] * [7; 8; 9] = [50; 122]
        let (c, s) = matmul(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[7.0, 8.0, -9.0], 2, 3, 1);
        assert_eq!(
            c,
            vec![
                1.0 * 7.0 + 2.0 * 8.0 - 3.0 * 9.0,
                4.0 * 7.0 + 5.0 * 8.0 - 6.0 * 9.0
            ]
        );
        assert_eq!(s, vec![7.0 + 16.0 + 27.0, 28.0 + 40.0 + 54.0]);
    }

    #[test]
    fn f32_matmul_stays_within_the_bound_and_a_dropped_term_does_not() {
        let (m, k, n) = (13, 29, 7);
        let mut r = Rng::new(42);
        let a = r.matrix(m * k, -1.0, 1.0);
        let b = r.matrix(k * n, -1.0, 1.0);
        let (exact, sums) = matmul(&a, &b, m, k, n);
        let bound: Vec<f64> = sums.iter().map(|&s| dot_error_bound(k, s)).collect();
        // A naive float32 product, as a GPU would compute it.
        let mut c32 = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                c32[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        let ok = compare(&c32, &exact, &bound);
        assert!(ok.worst_bound_ratio <= 1.0, "{ok:?}");
        // Drop the last term of one element: far outside the bound.
        c32[5] -= a[k - 1] * b[(k - 1) * n + 5];
        let bad = compare(&c32, &exact, &bound);
        assert!(bad.worst_bound_ratio > 10.0, "{bad:?}");
        assert_eq!(bad.worst_index, 5);
        c32[0] = f32::NAN;
        assert!(compare(&c32, &exact, &bound)
            .worst_bound_ratio
            .is_infinite());
    }
}
