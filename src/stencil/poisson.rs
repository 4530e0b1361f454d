//! The enhanced block Jacobi (EBJ) Poisson solver of the SIMD-optimization paper (spec §1.5), in float64: the grid
//! and its matrix, Gauss-Seidel (the paper's CPU competitor), the residual that defines the
//! tolerance, and the EBJ iteration exactly as the GPU runs it ([`Ebj::sweep`]). The GPU side is
//! `poisson_gpu.rs`.
//!
//! The problem, `A x = b` on an `nx x ny x nz` grid of cells (`nz = 1`: the 2D problem), unknown
//! `x_ijk` at index `i + nx (j + ny k)`: the 7-point (2D: 5-point) negative Laplacian with
//! **zero Dirichlet** values on the two planes perpendicular to x (outside `i = 0` and
//! `i = nx - 1`) and **zero Neumann** in y and z, as Table 3 states: a neighbour outside in y or
//! z is the cell itself (the paper's `GL_CLAMP_TO_EDGE`). With `d = 2 dims` (6 in 3D, 4 in 2D),
//!
//! ```text
//!   (A x)_ijk = d x_ijk - x_(i-1)jk - x_(i+1)jk        (zero outside in x)
//!               - x_i(j-1)k - x_i(j+1)k - x_ij(k-1) - x_ij(k+1)   (clamped in y, z)
//! ```
//!
//! The Jacobi matrix `-D^-1 (L + U)` along a line in x is the in-line block `S` (`1/d` beside the
//! diagonal; the spec reads −1/6 and −1/5 from Fig. 13, whose sign convention and Neumann ends
//! are not Table 3's; the non-zero pattern, and so the cost 38 -> 20, is the same), coupled to
//! the neighbouring lines by `T = I / d`. The x-line is held in a permuted order cut into slabs
//! of four ([`Ebj`]): one pass per slab, each slab reading the newest values of the slabs before
//! it. The tolerance is the relative residual `|b - A x|_2 / |b|_2` in float64.

use crate::error::{Error, Result};
use crate::reference::Rng;
use crate::simd_expr::{candidates, check_permutation, LinearExpr};

/// The longest grid line (x) accepted: 64 slabs of four.
pub const MAX_LINE: usize = 256;
/// The most unknowns accepted (2^24: 64 MiB of float32 per copy of x).
pub const MAX_UNKNOWNS: usize = 1 << 24;

/// An `nx x ny x nz` Poisson grid (see the module docs); `nz = 1` is the 2D problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoissonGrid {
    nx: usize,
    ny: usize,
    nz: usize,
}

impl PoissonGrid {
    /// The grid. Fails with [`Error::Argument`] unless `nx` is a multiple of 4 from 4 to
    /// [`MAX_LINE`], `ny` and `nz` are at least 1 (`ny` at least 2), and the grid holds at most
    /// [`MAX_UNKNOWNS`] unknowns. (Whether the device takes `ny` x `nz` textures is the GPU's
    /// check.)
    pub fn new(nx: usize, ny: usize, nz: usize) -> Result<Self> {
        if !(4..=MAX_LINE).contains(&nx) || !nx.is_multiple_of(4) {
            return Err(Error::Argument(format!(
                "the grid line nx must be a multiple of 4 from 4 to {MAX_LINE} (slabs of four), \
                 got {nx}"
            )));
        }
        if ny < 2 || nz < 1 {
            return Err(Error::Argument(format!(
                "a Poisson grid needs ny >= 2 and nz >= 1 (nz = 1: the 2D problem), got {ny} x {nz}"
            )));
        }
        let len = nx.saturating_mul(ny).saturating_mul(nz);
        if len > MAX_UNKNOWNS {
            return Err(Error::Argument(format!(
                "a {nx} x {ny} x {nz} grid has {len} unknowns, more than the {MAX_UNKNOWNS} \
                 accepted"
            )));
        }
        Ok(PoissonGrid { nx, ny, nz })
    }

    /// Cells along x, y and z.
    pub fn dims(&self) -> (usize, usize, usize) {
        (self.nx, self.ny, self.nz)
    }

    /// The number of unknowns.
    pub fn len(&self) -> usize {
        self.nx * self.ny * self.nz
    }

    /// Never: a grid has at least 8 cells.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The diagonal `d`: 6 in 3D, 4 in 2D.
    pub fn diagonal(&self) -> f64 {
        if self.nz == 1 {
            4.0
        } else {
            6.0
        }
    }

    /// The index of cell `(i, j, k)`.
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.nx * (j + self.ny * k)
    }

    /// The line offsets (index of `(0, j, k)`) of the neighbours of line `(j, k)` in y and z,
    /// clamped (a neighbour outside is the line itself).
    fn neighbour_lines(&self, j: usize, k: usize) -> Vec<usize> {
        let mut out = vec![
            self.index(0, j.saturating_sub(1), k),
            self.index(0, (j + 1).min(self.ny - 1), k),
        ];
        if self.nz > 1 {
            out.push(self.index(0, j, k.saturating_sub(1)));
            out.push(self.index(0, j, (k + 1).min(self.nz - 1)));
        }
        out
    }

    /// `A x` in float64.
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.len()];
        let d = self.diagonal();
        for k in 0..self.nz {
            for j in 0..self.ny {
                let line = self.index(0, j, k);
                let others = self.neighbour_lines(j, k);
                for i in 0..self.nx {
                    let mut v = d * x[line + i];
                    if i > 0 {
                        v -= x[line + i - 1];
                    }
                    if i + 1 < self.nx {
                        v -= x[line + i + 1];
                    }
                    for &o in &others {
                        v -= x[o + i];
                    }
                    y[line + i] = v;
                }
            }
        }
        y
    }

    /// The relative residual `|b - A x|_2 / |b|_2` (the tolerance of Table 3 as texla defines
    /// it; `|b - A x|_2` when `b` is zero).
    pub fn residual(&self, x: &[f64], b: &[f64]) -> f64 {
        let ax = self.apply(x);
        let r: f64 = ax.iter().zip(b).map(|(a, b)| (b - a) * (b - a)).sum();
        let nb: f64 = b.iter().map(|v| v * v).sum();
        if nb > 0.0 {
            (r / nb).sqrt()
        } else {
            r.sqrt()
        }
    }

    /// One Gauss-Seidel sweep in natural (lexicographic) order, in place: the paper's CPU
    /// solver. A neighbour clamped onto the cell itself moves to the diagonal.
    pub fn gauss_seidel(&self, x: &mut [f64], b: &[f64]) {
        let d = self.diagonal();
        for k in 0..self.nz {
            for j in 0..self.ny {
                let line = self.index(0, j, k);
                let others = self.neighbour_lines(j, k);
                let own = others.iter().filter(|&&o| o == line).count() as f64;
                for i in 0..self.nx {
                    let mut v = b[line + i];
                    if i > 0 {
                        v += x[line + i - 1];
                    }
                    if i + 1 < self.nx {
                        v += x[line + i + 1];
                    }
                    for &o in others.iter().filter(|&&o| o != line) {
                        v += x[o + i];
                    }
                    x[line + i] = v / (d - own);
                }
            }
        }
    }

    /// The in-line block `S` of the Jacobi matrix (`nx x nx`, `1/d` beside the diagonal).
    pub fn line_block(&self) -> LinearExpr {
        let n = self.nx;
        let mut a = vec![0.0; n * n];
        for r in 0..n {
            if r > 0 {
                a[r * n + r - 1] = 1.0 / self.diagonal();
            }
            if r + 1 < n {
                a[r * n + r + 1] = 1.0 / self.diagonal();
            }
        }
        LinearExpr::from_dense(&a, n, None).expect("a valid block")
    }

    /// A right-hand side: the negative divergence of a seeded random velocity field on the
    /// cell faces (uniform in [-1, 1), zero on the faces of the domain's walls), as the
    /// projection step of Stam's solver makes (its systems are not in the seed).
    pub fn rhs(&self, seed: u32) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let (nx, ny, nz) = (self.nx, self.ny, self.nz);
        let mut face =
            |count: usize| -> Vec<f64> { (0..count).map(|_| 2.0 * rng.next_f64() - 1.0).collect() };
        // u on the faces between i and i+1, v between j and j+1, w between k and k+1.
        let u = face(nx * ny * nz);
        let v = face(nx * ny * nz);
        let w = face(nx * ny * nz);
        let mut b = vec![0.0; self.len()];
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let p = self.index(i, j, k);
                    let flux = |f: &[f64], inside: bool, q: usize| if inside { f[q] } else { 0.0 };
                    let mut div = flux(&u, i + 1 < nx, p) - flux(&u, i > 0, p.wrapping_sub(1));
                    div += flux(&v, j + 1 < ny, p) - flux(&v, j > 0, p.wrapping_sub(nx));
                    if nz > 1 {
                        div += flux(&w, k + 1 < nz, p) - flux(&w, k > 0, p.wrapping_sub(nx * ny));
                    }
                    b[p] = -div;
                }
            }
        }
        b
    }
}

/// The EBJ iteration on a grid with its x-line in a chosen order (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Ebj {
    /// The grid.
    pub grid: PoissonGrid,
    /// The line order: `perm[p]` is the cell `i` at position `p`; slab `s` holds positions
    /// `4s .. 4s + 3`.
    pub perm: Vec<usize>,
    /// What the order is called ("natural", "stride 10", "given").
    pub name: String,
}

impl Ebj {
    /// EBJ in the natural order (slab `s` = cells `4s .. 4s + 3`).
    pub fn natural(grid: PoissonGrid) -> Self {
        Ebj {
            grid,
            perm: (0..grid.nx).collect(),
            name: "natural".into(),
        }
    }

    /// EBJ in the order of least abstract cost of `S` among the structured candidates (the
    /// identity and the strides, spec §1.7: on the paper's 40-cell line, stride 10, cost 20
    /// against 38; on 8 cells, red-black, 4 against 6). The annealer finds no cheaper one for
    /// these tridiagonal blocks (§1.7), so the search stops there, deterministic and fast.
    pub fn optimized(grid: PoissonGrid) -> Self {
        let s = grid.line_block();
        let (name, perm) = candidates(grid.nx)
            .into_iter()
            .min_by_key(|(_, p)| s.permute(p).expect("a candidate").cost())
            .expect("the identity is a candidate");
        Ebj { grid, perm, name }
    }

    /// EBJ in the order `perm` (`perm[p]` = the cell at position `p`). Fails with
    /// [`Error::Argument`] unless it is a permutation of `0..nx`.
    pub fn with_order(grid: PoissonGrid, perm: &[usize]) -> Result<Self> {
        check_permutation(perm, grid.nx)?;
        Ok(Ebj {
            grid,
            perm: perm.to_vec(),
            name: "given".into(),
        })
    }

    /// The number of slabs, `nx / 4`.
    pub fn slabs(&self) -> usize {
        self.grid.nx / 4
    }

    /// The in-line block in this order, `P S P^T`.
    pub fn line_block(&self) -> LinearExpr {
        (self.grid.line_block().permute(&self.perm)).expect("a checked permutation")
    }

    /// The paper's abstract cost: of `S` in this order, and of one elementary blockwise product
    /// (`S` plus one diagonal `T` per neighbouring line, `nx / 4` each; 2D: 2 T, 3D: 4 T).
    pub fn cost(&self) -> (usize, usize) {
        let s = self.line_block().cost();
        let t = if self.grid.nz == 1 { 2 } else { 4 };
        (s, s + t * self.slabs())
    }

    /// One EBJ iteration in float64, in place (`x` in natural cell order): slab after slab,
    /// every cell of the slab from the values before this pass (Jacobi inside the slab), the
    /// slabs before it already new, exactly the order of the GPU passes.
    pub fn sweep(&self, x: &mut [f64], b: &[f64]) {
        let g = &self.grid;
        let d = g.diagonal();
        let mut fresh = vec![0.0; 4 * g.ny * g.nz];
        for s in 0..self.slabs() {
            let cells = &self.perm[4 * s..4 * s + 4];
            for k in 0..g.nz {
                for j in 0..g.ny {
                    let line = g.index(0, j, k);
                    let others = g.neighbour_lines(j, k);
                    for (l, &i) in cells.iter().enumerate() {
                        let mut v = 0.0;
                        if i > 0 {
                            v += x[line + i - 1];
                        }
                        if i + 1 < g.nx {
                            v += x[line + i + 1];
                        }
                        for &o in &others {
                            v += x[o + i];
                        }
                        fresh[4 * (j + g.ny * k) + l] = (v + b[line + i]) / d;
                    }
                }
            }
            for k in 0..g.nz {
                for j in 0..g.ny {
                    let line = g.index(0, j, k);
                    for (l, &i) in cells.iter().enumerate() {
                        x[line + i] = fresh[4 * (j + g.ny * k) + l];
                    }
                }
            }
        }
    }

    /// Iterations of [`Ebj::sweep`] from zero until the relative residual is at most each of
    /// `tols` (ascending order not needed), at most `max_iter`: per tolerance the iteration
    /// count, or `None` where `max_iter` did not reach it (measure 4 of spec §1.8).
    pub fn iterations_to(&self, b: &[f64], tols: &[f64], max_iter: usize) -> Vec<Option<usize>> {
        iterations_to(&self.grid, b, tols, max_iter, |x| self.sweep(x, b))
    }
}

/// Iterations of `sweep` from zero until the relative residual of `grid` is at most each of
/// `tols`, at most `max_iter`.
pub fn iterations_to(
    grid: &PoissonGrid,
    b: &[f64],
    tols: &[f64],
    max_iter: usize,
    mut sweep: impl FnMut(&mut [f64]),
) -> Vec<Option<usize>> {
    let mut x = vec![0.0; grid.len()];
    let mut out = vec![None; tols.len()];
    let smallest = tols.iter().copied().fold(f64::INFINITY, f64::min);
    for it in 1..=max_iter {
        sweep(&mut x);
        let r = grid.residual(&x, b);
        for (o, &t) in out.iter_mut().zip(tols) {
            if o.is_none() && r <= t {
                *o = Some(it);
            }
        }
        if r <= smallest {
            break;
        }
    }
    out
}
