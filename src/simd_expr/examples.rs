//! The example expressions of the SIMD-optimization paper, built as the spec defines them (§1.4, §1.5, §1.7):
//! the Runge-Kutta cars, the S and T blocks of the enhanced block Jacobi Poisson solvers (2D and
//! 3D), the wave equation's 32 x 32 sub-blocks, and the 8 x 8 wave grid whose paper matrix is
//! lost. Only the non-zero patterns matter to the cost; the values are the spec's where it gives
//! them and stated placeholders where the paper computes them at run time.

use super::expr::LinearExpr;
use crate::error::Result;

/// The paper's permutation of the 2D S block (§1.5, Fig. 10):
/// `x~ = (x4, x7, x0, x3)`, `x^ = (x1, x5, x6, x2)`.
pub const PAPER_2D_PERMUTATION: [usize; 8] = [4, 7, 0, 3, 1, 5, 6, 2];

/// The time step of the Runge-Kutta example, seconds (not given in the paper).
pub const RK_STEP: f64 = 1.0 / 60.0;

/// λ² of the wave examples (λ = cΔt/Δx = 1/2, inside the stability bound 1/√2; not given in
/// the paper). At λ² = 1/2 the diagonal 2(1 - 2λ²) would vanish and change the pattern.
pub const WAVE_LAMBDA2: f64 = 0.25;

/// Builds a `size` x `size` expression from its non-zero entries.
fn from_entries(size: usize, entries: &[(usize, usize, f64)], b: Option<&[f64]>) -> LinearExpr {
    let mut a = vec![0.0; size * size];
    for &(r, c, v) in entries {
        a[r * size + c] = v;
    }
    LinearExpr::from_dense(&a, size, b).expect("the examples are valid expressions")
}

/// One set of the Runge-Kutta products (§1.4 item 2, Fig. 2a): `cars` bounce-and-pitch cars,
/// 4 states each (`y0` bounce, `y1 = y0'`, `y2` pitch, `y3 = y2'`), `y' = alpha y + beta`
/// scaled by h: `gamma = h alpha`, `delta = h beta`. Each car is one diagonal 4 x 4 block
///
/// ```text
/// [ 0 • 0 0 | 0 ]   y0' = y1
/// [ • • • • | • ]   y1' = bounce acceleration (springs k0, k1 and dampers c0, c1 at the axles)
/// [ 0 0 0 • | 0 ]   y2' = y3
/// [ • • • • | • ]   y3' = pitch acceleration
/// ```
///
/// The masses and constants are texla's (the paper's are not given), different per car; the
/// `delta` entries stand for `h d0 / M` and `h d1 / I`, which the paper computes each step
/// from the road.
pub fn runge_kutta_cars(cars: usize) -> LinearExpr {
    let m = 4 * cars;
    let mut entries = Vec::new();
    let mut b = vec![0.0; m];
    for car in 0..cars {
        let o = 4 * car;
        let s = car as f64;
        let (mass, inertia) = (1200.0 + 100.0 * s, 1600.0 + 150.0 * s);
        let (k0, k1, c0, c1) = (20_000.0 + 500.0 * s, 22_000.0, 1_500.0, 1_700.0 + 50.0 * s);
        // Front axle a metres ahead of the mass centre, rear axle l - a behind.
        let (a, l) = (1.2, 2.8);
        let r = l - a;
        let h = RK_STEP;
        entries.push((o, o + 1, h));
        entries.push((o + 1, o, -h * (k0 + k1) / mass));
        entries.push((o + 1, o + 1, -h * (c0 + c1) / mass));
        entries.push((o + 1, o + 2, h * (k0 * a - k1 * r) / mass));
        entries.push((o + 1, o + 3, h * (c0 * a - c1 * r) / mass));
        entries.push((o + 2, o + 3, h));
        entries.push((o + 3, o, h * (k0 * a - k1 * r) / inertia));
        entries.push((o + 3, o + 1, h * (c0 * a - c1 * r) / inertia));
        entries.push((o + 3, o + 2, -h * (k0 * a * a + k1 * r * r) / inertia));
        entries.push((o + 3, o + 3, -h * (c0 * a * a + c1 * r * r) / inertia));
        b[o + 1] = -h * 0.02 * (1.0 + 0.1 * s);
        b[o + 3] = h * 0.01 * (1.0 + 0.1 * s);
    }
    from_entries(m, &entries, Some(&b))
}

/// The in-line block S of the Jacobi matrix `-D^-1 (L + U)` of a Poisson equation along one
/// grid line of `len` unknowns with Neumann ends: off-diagonals only, `interior` in the inner
/// rows and `end` in the first and last (a boundary unknown has one neighbour fewer).
fn line_s(len: usize, interior: f64, end: f64) -> LinearExpr {
    let mut entries = Vec::new();
    for r in 0..len {
        let v = if r == 0 || r == len - 1 {
            end
        } else {
            interior
        };
        if r > 0 {
            entries.push((r, r - 1, v));
        }
        if r + 1 < len {
            entries.push((r, r + 1, v));
        }
    }
    from_entries(len, &entries, None)
}

/// The coupling block T to a neighbouring line: diagonal, `interior` inside, `end` at the ends.
fn line_t(len: usize, interior: f64, end: f64) -> LinearExpr {
    let entries: Vec<_> = (0..len)
        .map(|r| {
            (
                r,
                r,
                if r == 0 || r == len - 1 {
                    end
                } else {
                    interior
                },
            )
        })
        .collect();
    from_entries(len, &entries, None)
}

/// The 8 x 8 S block of the 2D enhanced block Jacobi solver (§1.5, Fig. 10): −1/4 on the
/// off-diagonals, −1/3 in the first and last rows (Neumann at the vertical boundaries). The
/// signs are the Fig. 10 caption's as the spec reads it; the pattern alone sets the cost.
pub fn poisson_2d_s() -> LinearExpr {
    line_s(8, -0.25, -1.0 / 3.0)
}

/// The 8 x 8 T block of the 2D solver: diagonal, −1/4, −1/3 at the ends.
pub fn poisson_2d_t() -> LinearExpr {
    line_t(8, -0.25, -1.0 / 3.0)
}

/// The 40 x 40 S block of the 3D solver (§1.5, Fig. 13a): −1/6 on the off-diagonals, −1/5 in
/// the first and last rows (Neumann at the two planes perpendicular to x).
pub fn poisson_3d_s() -> LinearExpr {
    line_s(40, -1.0 / 6.0, -0.2)
}

/// The 40 x 40 T block of the 3D solver: diagonal, −1/6, −1/5 at the ends.
pub fn poisson_3d_t() -> LinearExpr {
    line_t(40, -1.0 / 6.0, -0.2)
}

/// The 32 x 32 diagonal sub-block S* of the 512 x 512 wave matrix (§1.5, Fig. 14b):
/// `2(1 - 2λ²)` on the diagonal, `λ²` beside it.
pub fn wave_s_star() -> LinearExpr {
    let mut entries = Vec::new();
    for r in 0..32 {
        entries.push((r, r, 2.0 * (1.0 - 2.0 * WAVE_LAMBDA2)));
        if r > 0 {
            entries.push((r, r - 1, WAVE_LAMBDA2));
        }
        if r < 31 {
            entries.push((r, r + 1, WAVE_LAMBDA2));
        }
    }
    from_entries(32, &entries, None)
}

/// The 32 x 32 sub-block T* of the wave matrix: `λ² I`.
pub fn wave_t_star() -> LinearExpr {
    line_t(32, WAVE_LAMBDA2, WAVE_LAMBDA2)
}

/// The two couplings a 32-row slice of S has outside its S* block (§1.5: "two coefficients
/// around each corner"): its first row to the previous slice's last unknown and its last row
/// to the next slice's first, each a 32 x 32 block with one `λ²`.
pub fn wave_corners() -> [LinearExpr; 2] {
    [
        from_entries(32, &[(0, 31, WAVE_LAMBDA2)], None),
        from_entries(32, &[(31, 0, WAVE_LAMBDA2)], None),
    ]
}

/// The 64 x 64 matrix of the 8 x 8 wave grid of §1.4 item 1 with zero Dirichlet boundaries
/// (the paper's boundary treatment is unreadable; this is the plain 5-point matrix):
/// `w_k+1 = λ² (4 neighbours) + 2(1 - 2λ²) w_k - w_k-1`, unknown `i + 8 j`, `b = -w_k-1`
/// (run-time values in the paper; −1 here, every entry non-zero).
pub fn wave_2d_dirichlet() -> LinearExpr {
    let side = 8;
    let m = side * side;
    let mut entries = Vec::new();
    for j in 0..side {
        for i in 0..side {
            let k = i + side * j;
            entries.push((k, k, 2.0 * (1.0 - 2.0 * WAVE_LAMBDA2)));
            let mut neighbour =
                |ii: usize, jj: usize| entries.push((k, ii + side * jj, WAVE_LAMBDA2));
            if i > 0 {
                neighbour(i - 1, j);
            }
            if i + 1 < side {
                neighbour(i + 1, j);
            }
            if j > 0 {
                neighbour(i, j - 1);
            }
            if j + 1 < side {
                neighbour(i, j + 1);
            }
        }
    }
    from_entries(m, &entries, Some(&vec![-1.0; m]))
}

/// One elementary blockwise product (§1.5) as a square expression,
/// `y = S x_0 + C_1 x_1 + .. + C_k x_k + b`, for the m x m in-line block `s` and the couplings `c_1..c_k` to the
/// neighbouring lines, with `b` non-zero. The unknown vector is the k + 1 lines one after
/// another; only the first m rows are non-zero, so the other rows cost nothing and `cost()` is
/// the paper's count for the product (e.g. T-S-T: S + 2 T). Fails when the sizes differ.
pub fn elementary_product(s: &LinearExpr, couplings: &[LinearExpr]) -> Result<LinearExpr> {
    let m = s.size();
    let size = m * (1 + couplings.len());
    let mut a = vec![0.0; size * size];
    for (part, block) in std::iter::once(s).chain(couplings).enumerate() {
        if block.size() != m {
            return Err(crate::error::Error::Argument(format!(
                "every block of an elementary product must be {m} x {m}, got {} x {}",
                block.size(),
                block.size()
            )));
        }
        for r in 0..m {
            for c in 0..m {
                a[r * size + part * m + c] = block.entry(r, c);
            }
        }
    }
    let b: Vec<f64> = (0..size).map(|r| if r < m { 1.0 } else { 0.0 }).collect();
    LinearExpr::from_dense(&a, size, Some(&b))
}

/// The permutation `perm` of one line applied to each of `lines` lines alike (every line of
/// the grid is stored in the same permuted order), for an [`elementary_product`].
pub fn line_permutation(perm: &[usize], lines: usize) -> Vec<usize> {
    let m = perm.len();
    (0..lines)
        .flat_map(|line| perm.iter().map(move |&p| line * m + p))
        .collect()
}

/// A random sparse `m x m` expression for tests: each coefficient non-zero with probability
/// `density`, uniform in [-1, 1) then, and with `b` uniform in [-1, 1) when `with_b` (texla's
/// mulberry32 from `seed`, so the same on every run).
pub fn random_sparse(m: usize, density: f64, seed: u32, with_b: bool) -> Result<LinearExpr> {
    let mut rng = crate::reference::Rng::new(seed);
    let mut uniform = || 2.0 * rng.next_f64() - 1.0;
    let a: Vec<f64> = (0..m * m)
        .map(|_| {
            let keep = (uniform() + 1.0) / 2.0 < density;
            let v = uniform();
            if keep {
                v
            } else {
                0.0
            }
        })
        .collect();
    let b: Option<Vec<f64>> = with_b.then(|| (0..m).map(|_| uniform()).collect());
    LinearExpr::from_dense(&a, m, b.as_deref())
}
