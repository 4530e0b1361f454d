//! Test problems with known answers, the same for the tests, the page and the benchmarks.
//!
//! Matrices are row-major f32 (what the GPU gets); the known solution `x` is exact for the f32
//! A and f32 b up to the rounding of b = A x (computed in float64, then rounded once).

use crate::reference::Rng;

/// A linear system or LCP with its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Order n.
    pub n: usize,
    /// n x n, row-major.
    pub a: Vec<f32>,
    /// n.
    pub b: Vec<f32>,
    /// The known solution, n values.
    pub x: Vec<f64>,
}

fn times(a: &[f32], x: &[f64], n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (0..n).map(|j| f64::from(a[i * n + j]) * x[j]).sum())
        .collect()
}

fn system(n: usize, a: Vec<f32>, x: Vec<f64>) -> Problem {
    let b = times(&a, &x, n).iter().map(|v| *v as f32).collect();
    Problem { n, a, b, x }
}

/// A smooth known solution: x_i = sin(3 pi (i + 1) / (n + 1)) + 0.5.
fn smooth(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (3.0 * std::f64::consts::PI * (i + 1) as f64 / (n + 1) as f64).sin() + 0.5)
        .collect()
}

/// The 1D Poisson matrix tridiag(-1, 2, -1) of order n, with a smooth known solution.
pub fn poisson_1d(n: usize) -> Problem {
    let mut a = vec![0.0f32; n * n];
    for i in 0..n {
        a[i * n + i] = 2.0;
        if i > 0 {
            a[i * n + i - 1] = -1.0;
        }
        if i + 1 < n {
            a[i * n + i + 1] = -1.0;
        }
    }
    system(n, a, smooth(n))
}

/// The 2D Poisson matrix (5-point stencil) on an m x m grid, order m^2.
pub fn poisson_2d(m: usize) -> Problem {
    let n = m * m;
    let mut a = vec![0.0f32; n * n];
    for gy in 0..m {
        for gx in 0..m {
            let i = gy * m + gx;
            a[i * n + i] = 4.0;
            let mut link = |j: usize| a[i * n + j] = -1.0;
            if gx > 0 {
                link(i - 1);
            }
            if gx + 1 < m {
                link(i + 1);
            }
            if gy > 0 {
                link(i - m);
            }
            if gy + 1 < m {
                link(i + m);
            }
        }
    }
    system(n, a, smooth(n))
}

/// The 5-point Laplacian of an m x m grid of values `x` (zero outside it), in float64: what
/// [`poisson_2d`]'s matrix does to the vector of the grid's values, row by row.
pub fn laplacian_2d(x: &[f64], m: usize) -> Vec<f64> {
    let at = |gy: usize, gx: usize| x[gy * m + gx];
    (0..m * m)
        .map(|i| {
            let (gy, gx) = (i / m, i % m);
            let mut v = 4.0 * at(gy, gx);
            if gx > 0 {
                v -= at(gy, gx - 1);
            }
            if gx + 1 < m {
                v -= at(gy, gx + 1);
            }
            if gy > 0 {
                v -= at(gy - 1, gx);
            }
            if gy + 1 < m {
                v -= at(gy + 1, gx);
            }
            v
        })
        .collect()
}

/// [`poisson_2d`] without its matrix (`a` is empty): b and the known x, m^2 values each, for
/// grids whose dense matrix would not fit (m = 201: 40,401 unknowns, 6.5 GB dense). Solved by
/// [`crate::solver::cg_poisson_2d`], which applies the matrix as a stencil.
pub fn poisson_2d_grid(m: usize) -> Problem {
    let x = smooth(m * m);
    let b = laplacian_2d(&x, m).iter().map(|v| *v as f32).collect();
    Problem {
        n: m * m,
        a: Vec::new(),
        b,
        x,
    }
}

/// A random symmetric positive definite matrix: off-diagonal entries uniform in [-1, 1] / sqrt(n),
/// diagonal entries the sum of their row's |off-diagonal| entries plus one (strictly diagonally
/// dominant with a positive diagonal, hence positive definite), built in O(n^2).
pub fn random_spd(n: usize, seed: u32) -> Problem {
    let mut rng = Rng::new(seed);
    let scale = 1.0 / (n as f32).sqrt();
    let mut a = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..i {
            let v = rng.matrix(1, -1.0, 1.0)[0] * scale;
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    for i in 0..n {
        a[i * n + i] = 1.0
            + (0..n)
                .filter(|&j| j != i)
                .map(|j| a[i * n + j].abs())
                .sum::<f32>();
    }
    let x = rng
        .matrix(n, -1.0, 1.0)
        .iter()
        .map(|v| f64::from(*v))
        .collect();
    system(n, a, x)
}

/// Fujimoto's test systems for Jacobi's method: off-diagonal entries uniform in [0, 1], each
/// diagonal entry `alpha` times the sum of its row's off-diagonal entries, b uniform in
/// [-0.5, 0.5]. The known solution is computed in float64 by Gauss-Seidel sweeps (the matrix
/// is strictly diagonally dominant for alpha > 1).
pub fn jacobi_system(n: usize, alpha: f64, seed: u32) -> Problem {
    let mut rng = Rng::new(seed);
    let mut a = rng.matrix(n * n, 0.0, 1.0);
    for i in 0..n {
        let row: f64 = (0..n)
            .filter(|&j| j != i)
            .map(|j| f64::from(a[i * n + j]))
            .sum();
        a[i * n + i] = (alpha * row) as f32;
    }
    let b = rng.matrix(n, -0.5, 0.5);
    let mut x = vec![0.0f64; n];
    for _ in 0..10_000 {
        let mut change = 0.0f64;
        for i in 0..n {
            let s: f64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| f64::from(a[i * n + j]) * x[j])
                .sum();
            let xi = (f64::from(b[i]) - s) / f64::from(a[i * n + i]);
            change = change.max((xi - x[i]).abs());
            x[i] = xi;
        }
        if change < 1e-15 {
            break;
        }
    }
    Problem { n, a, b, x }
}

/// An LCP with a known solution: A symmetric and strictly diagonally dominant with a positive
/// diagonal, x* and w* complementary (every third component active: x* = 0 and w* > 0; the
/// others x* > 0, w* = 0), b = w* - A x*.
pub fn lcp(n: usize, seed: u32) -> Problem {
    let mut rng = Rng::new(seed);
    let mut a = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..i {
            let v = rng.matrix(1, -1.0, 1.0)[0] / n as f32;
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    for i in 0..n {
        let row: f32 = (0..n).filter(|&j| j != i).map(|j| a[i * n + j].abs()).sum();
        a[i * n + i] = 1.0 + 2.0 * row;
    }
    let x: Vec<f64> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                0.0
            } else {
                0.5 + rng.next_f64()
            }
        })
        .collect();
    let ax = times(&a, &x, n);
    let b = (0..n)
        .map(|i| {
            let w = if i % 3 == 0 {
                0.5 + rng.next_f64()
            } else {
                0.0
            };
            (w - ax[i]) as f32
        })
        .collect();
    Problem { n, a, b, x }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual(p: &Problem) -> f64 {
        let ax = times(&p.a, &p.x, p.n);
        (0..p.n)
            .map(|i| (ax[i] - f64::from(p.b[i])).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn the_stencil_is_the_dense_2d_poisson_matrix() {
        let (m, dense) = (7, poisson_2d(7));
        let grid = poisson_2d_grid(m);
        assert_eq!(grid.x, dense.x);
        let (stencil, matrix) = (laplacian_2d(&dense.x, m), times(&dense.a, &dense.x, m * m));
        for (i, (s, d)) in stencil.iter().zip(&matrix).enumerate() {
            assert!((s - d).abs() <= 1e-14, "row {i}: {s} against {d}");
            assert!((f64::from(grid.b[i]) - d).abs() <= 1e-6 * d.abs().max(1.0));
        }
    }

    #[test]
    fn systems_are_solved_by_their_known_x() {
        for (p, symmetric) in [
            (poisson_1d(50), true),
            (poisson_2d(7), true),
            (random_spd(40, 1), true),
            (jacobi_system(60, 1.1, 2), false),
        ] {
            let scale = p.b.iter().fold(0.0f32, |m, v| m.max(v.abs())) as f64;
            assert!(residual(&p) <= 1e-6 * scale.max(1.0), "{}", residual(&p));
            for i in (0..p.n).filter(|_| symmetric) {
                for j in 0..p.n {
                    assert_eq!(p.a[i * p.n + j], p.a[j * p.n + i], "symmetric");
                }
            }
        }
    }

    #[test]
    fn lcp_answer_is_complementary() {
        let p = lcp(30, 3);
        let ax = times(&p.a, &p.x, p.n);
        let mut active = 0;
        for ((axi, bi), xi) in ax.iter().zip(&p.b).zip(&p.x) {
            let w = axi + f64::from(*bi);
            assert!(*xi >= 0.0 && w >= -1e-6);
            assert!((xi * w).abs() < 1e-5, "x {xi} w {w}");
            active += usize::from(*xi == 0.0);
        }
        assert_eq!(active, 10);
    }

    #[test]
    fn jacobi_system_follows_seed_003() {
        let p = jacobi_system(20, 1.4, 9);
        for i in 0..20 {
            let off: f32 = (0..20).filter(|&j| j != i).map(|j| p.a[i * 20 + j]).sum();
            assert!((p.a[i * 20 + i] - 1.4 * off).abs() < 1e-4);
            assert!((-0.5..0.5).contains(&p.b[i]));
        }
    }
}
