//! The 512 x 512 wave of the SIMD-optimization paper (spec §1.4 item 1, §1.5), in float64 and on the GPU:
//!
//! ```text
//!   w_k+1(i, j) = 2(1 - 2λ²) w_k(i, j) + λ² (w_k(i-1, j) + w_k(i+1, j))     in-line: S
//!               + λ² (w_k(i, j-1) + w_k(i, j+1))                              lines:   T
//!               - w_k-1(i, j)
//! ```
//!
//! on `side` cells along a line (i) and `lines` lines (j), cell `(i, j)` at index `i + side j`:
//! zero Dirichlet along the line (outside `i = 0` and `i = side - 1` the height is 0) and zero
//! Neumann across the lines (a line outside is the edge line: clamped). The line is cut into
//! blocks of 32 cells (the paper's S*, 38 -> 24 instructions with the stride order), each block
//! in the order `perm` and cut into eight quadruples; quadruple `q` of every block of every
//! line is texture `q` (`lines` texel rows, `side / 32` columns: the paper's eight textures),
//! updated by one kernel; the two cells at a block's ends couple to the neighbouring blocks
//! (the "corners"). An explicit three-level scheme reads steps k and k - 1 and writes k + 1,
//! so the eight kernels all read step k (no immediate replacement, unlike EBJ).

use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernels::{self, Corner, Last, LineStencil, LinearPlan, Program};
use crate::matrix::Matrix;
use crate::simd_expr::{check_permutation, stride_permutation, LinearExpr};

/// Cells of one S* block.
pub const BLOCK: usize = 32;
/// The longest line and the most lines accepted.
pub const MAX_SIDE: usize = 4096;

/// The wave on a `side x lines` grid with its blocks in a chosen order.
#[derive(Debug, Clone, PartialEq)]
pub struct Wave {
    side: usize,
    lines: usize,
    lambda2: f64,
    /// `perm[p]` = the cell of a block at position `p`.
    perm: Vec<usize>,
    /// What the order is called.
    pub name: String,
}

/// The wave's state on the GPU: steps k - 1 and k, eight textures each.
#[derive(Debug, Clone)]
pub struct WaveState {
    /// Step k - 1.
    pub previous: Vec<Matrix>,
    /// Step k.
    pub current: Vec<Matrix>,
}

/// One kernel of a step and the quadruples of step k it reads (then step k - 1 of its own).
#[derive(Debug, Clone)]
pub struct WavePass {
    /// The kernel.
    pub kernel: kernels::Kernel,
    /// Quadruples read, in input order.
    pub quadruples: Vec<usize>,
}

impl Wave {
    /// The wave with `λ² = lambda2`, blocks in natural order (`"natural"`), in the stride-8
    /// order that the paper's S* takes to 24 instructions (`"optimized"`, the cheapest of the
    /// structured candidates, spec §1.7). Fails with [`Error::Argument`] unless `side` is a
    /// multiple of 32 up to [`MAX_SIDE`], `lines` is 2 to [`MAX_SIDE`], and `λ²` is in
    /// (0, 0.5] (the scheme's stability bound).
    pub fn new(side: usize, lines: usize, lambda2: f64, ordering: &str) -> Result<Self> {
        let perm = match ordering {
            "natural" => (0..BLOCK).collect(),
            "optimized" => stride_permutation(BLOCK, 8),
            other => {
                return Err(Error::Argument(format!(
                    "a wave's ordering is \"natural\" or \"optimized\", got \"{other}\""
                )))
            }
        };
        Wave::with_order(side, lines, lambda2, &perm, ordering)
    }

    /// The wave with its blocks in the order `perm` (a permutation of `0..32`).
    pub fn with_order(
        side: usize,
        lines: usize,
        lambda2: f64,
        perm: &[usize],
        name: &str,
    ) -> Result<Self> {
        if !(BLOCK..=MAX_SIDE).contains(&side) || !side.is_multiple_of(BLOCK) {
            return Err(Error::Argument(format!(
                "a wave's line must be a multiple of {BLOCK} cells up to {MAX_SIDE}, got {side}"
            )));
        }
        if !(2..=MAX_SIDE).contains(&lines) {
            return Err(Error::Argument(format!(
                "a wave needs 2 to {MAX_SIDE} lines, got {lines}"
            )));
        }
        if !(lambda2 > 0.0 && lambda2 <= 0.5) {
            return Err(Error::Argument(format!(
                "λ² = (c Δt / Δx)² must be in (0, 0.5] for the scheme to be stable, got {lambda2}"
            )));
        }
        check_permutation(perm, BLOCK)?;
        Ok(Wave {
            side,
            lines,
            lambda2,
            perm: perm.to_vec(),
            name: name.into(),
        })
    }

    /// `(side, lines)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.side, self.lines)
    }

    /// The order of a block.
    pub fn permutation(&self) -> &[usize] {
        &self.perm
    }

    /// The block S* (32 x 32) in this order.
    pub fn block(&self) -> LinearExpr {
        let c = 2.0 * (1.0 - 2.0 * self.lambda2);
        let mut a = vec![0.0; BLOCK * BLOCK];
        for r in 0..BLOCK {
            a[r * BLOCK + r] = c;
            if r > 0 {
                a[r * BLOCK + r - 1] = self.lambda2;
            }
            if r + 1 < BLOCK {
                a[r * BLOCK + r + 1] = self.lambda2;
            }
        }
        let s = LinearExpr::from_dense(&a, BLOCK, None).expect("a valid block");
        s.permute(&self.perm).expect("a checked permutation")
    }

    /// The paper's abstract cost: of S* in this order, and of one 32 x 32 elementary blockwise
    /// product (S*, two corner coefficients at one instruction each, two T* at 8 each).
    pub fn cost(&self) -> (usize, usize) {
        let s = self.block().cost();
        (s, s + 2 + 2 * (BLOCK / 4))
    }

    /// One step in float64: `(previous, current)` becomes `(current, next)`.
    pub fn step(&self, previous: &mut Vec<f64>, current: &mut Vec<f64>) {
        let (n, lines, l2) = (self.side, self.lines, self.lambda2);
        let c = 2.0 * (1.0 - 2.0 * l2);
        let mut next = vec![0.0; n * lines];
        for j in 0..lines {
            let (up, down) = (j.saturating_sub(1), (j + 1).min(lines - 1));
            for i in 0..n {
                let w = |ii: usize, jj: usize| current[ii + n * jj];
                let mut v = c * w(i, j) + l2 * (w(i, up) + w(i, down));
                if i > 0 {
                    v += l2 * w(i - 1, j);
                }
                if i + 1 < n {
                    v += l2 * w(i + 1, j);
                }
                next[i + n * j] = v - previous[i + n * j];
            }
        }
        *previous = std::mem::replace(current, next);
    }

    /// The eight kernels of a step.
    pub fn passes(&self) -> Result<Vec<WavePass>> {
        let program = self.block().instructions();
        let plan = LinearPlan::new(&program, &(0..BLOCK).collect::<Vec<_>>())?;
        let mut position = [0; BLOCK];
        for (p, &i) in self.perm.iter().enumerate() {
            position[i] = p;
        }
        let (first, last) = (position[0], position[BLOCK - 1]);
        (0..BLOCK / 4)
            .map(|q| {
                let mut corners = Vec::new();
                if first / 4 == q {
                    // cell 0 of a block reads cell 31 of the block before.
                    corners.push(Corner {
                        lane: first % 4,
                        source: last / 4,
                        source_lane: last % 4,
                        offset: (-1, 0),
                        coefficient: self.lambda2,
                    });
                }
                if last / 4 == q {
                    corners.push(Corner {
                        lane: last % 4,
                        source: first / 4,
                        source_lane: first % 4,
                        offset: (1, 0),
                        coefficient: self.lambda2,
                    });
                }
                let stencil = LineStencil {
                    quadruple: q,
                    rows: plan.rows[q].clone(),
                    reads: plan.reads[q].clone(),
                    neighbours: vec![((0, -1), self.lambda2), ((0, 1), self.lambda2)],
                    corners,
                    last: Last::Subtract,
                };
                Ok(WavePass {
                    kernel: kernels::line_stencil(&program, &stencil)?,
                    quadruples: stencil.inputs(),
                })
            })
            .collect()
    }

    /// Heights (natural order) as the eight textures' data: texture `q`, row `4 j + l`,
    /// column `b` = the cell at position `4 q + l` of block `b` of line `j`.
    pub fn pack(&self, w: &[f64]) -> Vec<Vec<f32>> {
        let blocks = self.side / BLOCK;
        (0..BLOCK / 4)
            .map(|q| {
                let mut out = vec![0.0f32; 4 * self.lines * blocks];
                for j in 0..self.lines {
                    for l in 0..4 {
                        let cell = self.perm[4 * q + l];
                        for b in 0..blocks {
                            out[(4 * j + l) * blocks + b] =
                                w[BLOCK * b + cell + self.side * j] as f32;
                        }
                    }
                }
                out
            })
            .collect()
    }

    /// The inverse of [`Wave::pack`], as float32 heights in natural order.
    pub fn unpack(&self, textures: &[Vec<f32>]) -> Vec<f32> {
        let blocks = self.side / BLOCK;
        let mut w = vec![0.0; self.side * self.lines];
        for (q, data) in textures.iter().enumerate() {
            for j in 0..self.lines {
                for l in 0..4 {
                    let cell = self.perm[4 * q + l];
                    for b in 0..blocks {
                        w[BLOCK * b + cell + self.side * j] = data[(4 * j + l) * blocks + b];
                    }
                }
            }
        }
        w
    }

    /// Uploads steps k - 1 and k (natural order, `side * lines` finite values each). Fails
    /// with [`Error::Argument`] for a wrong length or a non-finite value, also
    /// when the device's textures cannot hold the lines.
    pub fn upload(&self, gpu: &Gpu, previous: &[f64], current: &[f64]) -> Result<WaveState> {
        let n = self.side * self.lines;
        for (name, v) in [("previous", previous), ("current", current)] {
            if v.len() != n {
                return Err(Error::Argument(format!(
                    "{name} heights must hold side x lines = {n} values, got {}",
                    v.len()
                )));
            }
            if let Some(p) = v.iter().position(|x| !(*x as f32).is_finite()) {
                return Err(Error::Argument(format!(
                    "{name}[{p}] is {}: heights must be finite float32 numbers",
                    v[p]
                )));
            }
        }
        let (rows, cols) = (4 * self.lines, self.side / BLOCK);
        if !gpu.fits(rows, cols) {
            return Err(Error::Argument(format!(
                "the wave is too large for this device: its textures need {cols} x {} texels, \
                 this device allows at most {max} x {max}",
                self.lines,
                max = gpu.tile_limit()
            )));
        }
        let up = |w: &[f64]| -> Result<Vec<Matrix>> {
            (self.pack(w).iter())
                .map(|d| gpu.upload(d, rows, cols))
                .collect()
        };
        Ok(WaveState {
            previous: up(previous)?,
            current: up(current)?,
        })
    }

    /// One step on the GPU: the eight kernels on step k, then step k becomes k - 1.
    pub fn step_gpu(&self, gpu: &Gpu, passes: &[WavePass], state: &mut WaveState) -> Result<()> {
        let next = (passes.iter().enumerate())
            .map(|(q, pass)| {
                let mut inputs: Vec<&Matrix> =
                    pass.quadruples.iter().map(|&j| &state.current[j]).collect();
                inputs.push(&state.previous[q]);
                let layouts = inputs.iter().map(|m| m.layout()).collect();
                gpu.run(
                    Program::new(pass.kernel.clone(), layouts, state.current[q].layout()),
                    &inputs,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        state.previous = std::mem::replace(&mut state.current, next);
        Ok(())
    }

    /// Reads a step's heights back (natural order).
    pub async fn read(&self, gpu: &Gpu, textures: &[Matrix]) -> Result<Vec<f32>> {
        let mut data = Vec::with_capacity(textures.len());
        for m in textures {
            data.push(gpu.read(m).await?);
        }
        Ok(self.unpack(&data))
    }

    /// A stone: `amplitude exp(-r² / radius²)` around cell `(x, y)`, as heights to add.
    pub fn stone(&self, x: f64, y: f64, amplitude: f64, radius: f64) -> Vec<f64> {
        let mut w = vec![0.0; self.side * self.lines];
        for j in 0..self.lines {
            for i in 0..self.side {
                let r2 = (i as f64 - x).powi(2) + (j as f64 - y).powi(2);
                w[i + self.side * j] = amplitude * (-r2 / (radius * radius)).exp();
            }
        }
        w
    }
}
