//! The cost model of the SIMD-optimization paper (spec §1.2): how many four-wide SIMD instructions evaluate
//! `y = A x + b`, from the non-zero patterns of `A` and `b` alone.
//!
//! Per block term `T_ij = A_ij x_j` (§2.3.1 of the paper):
//!
//! ```text
//!   A_ij          c_C = 3 peels (most non-zeros in one row)      r_R = 4 non-empty rows
//!   . a . a       MUL  (a01 a10 a21 a30) * x.yxyx                DP4 y.x, row 0, x
//!   a . a a       MAD  (a02 a12 a22 a31) * x.zzzy + acc          DP4 y.y, row 1, x
//!   . a a .       MAD  (0   a13 0   0  ) * x.wwwz + acc          DP4 y.z, row 2, x
//!   a a . .                                                      DP4 y.w, row 3, x
//! ```
//!
//! `C_mul(i,j) = min(c_C, r_R)`, a tie going to the column-major chain (it absorbs the addition
//! into `y_i`); `C_sum(i)` = `n_R(i)` ADDs when `b_i` is non-trivial, `n_R(i) - 1` otherwise,
//! where `n_R(i)` counts the row-major terms of block row `i`; `C(E) = sum C_mul + sum C_sum`.
//! The edge rules the spec fixes: `n_R = 0` with trivial `b_i` costs 0 (not -1), and a block row
//! with no term at all but a non-trivial `b_i` costs one MOV.

use super::expr::LinearExpr;

/// The two ways to evaluate one block term `T_ij` and what each costs (spec §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockCost {
    /// `c_C(i,j)`: the peels of the column-major method, the most non-zeros in one row.
    pub peels: usize,
    /// `r_R(i,j)`: the DP4s of the row-major method, the rows holding a non-zero.
    pub rows: usize,
}

impl BlockCost {
    /// The costs of the 4 x 4 block whose non-zeros are the set bits of `mask` (bit `4 r + c`
    /// for row `r`, column `c`).
    pub fn of_mask(mask: u16) -> Self {
        let row_counts = (0..4).map(|r| ((mask >> (4 * r)) & 0xF).count_ones() as usize);
        BlockCost {
            peels: row_counts.clone().max().unwrap_or(0),
            rows: row_counts.filter(|&n| n > 0).count(),
        }
    }

    /// A null block: no term, nothing to evaluate or add.
    pub fn is_null(&self) -> bool {
        self.rows == 0
    }

    /// Whether the term is evaluated row-major (DP4s): only when strictly cheaper, since a tie
    /// goes to the column-major chain.
    pub fn row_major(&self) -> bool {
        self.rows < self.peels
    }

    /// `C_mul(i,j) = min(c_C, r_R)`.
    pub fn cost(&self) -> usize {
        self.peels.min(self.rows)
    }
}

/// `C_sum(i)` (spec §1.2) for a block row with `n_r` row-major terms, `column_terms`
/// column-major terms and a non-trivial `b_i` or not.
pub fn summation_cost(n_r: usize, column_terms: usize, b_nontrivial: bool) -> usize {
    match (b_nontrivial, n_r, column_terms) {
        // Nothing multiplies into y_i: it is b_i, moved in with one MOV (the spec's choice).
        (true, 0, 0) => 1,
        // b_i is added to the row-major results by n_R ADDs (or is the addend of the first
        // column-major MAD when n_R = 0).
        (true, _, _) => n_r,
        // The first row-major term is written straight into y_i; max(0, n_R - 1).
        (false, _, _) => n_r.saturating_sub(1),
    }
}

/// The cost of one block row: `sum_j C_mul(i,j) + C_sum(i)` for the block masks of the row;
/// `forced_row_major` is the block column whose term must be row-major (Gauss-Seidel's
/// diagonal block, §3.3), if any.
fn block_row_cost(masks: &[u16], b_nontrivial: bool, forced_row_major: Option<usize>) -> usize {
    let (mut mul, mut n_r, mut column_terms) = (0, 0, 0);
    for (j, &mask) in masks.iter().enumerate() {
        let term = BlockCost::of_mask(mask);
        if term.is_null() {
            continue;
        }
        if forced_row_major == Some(j) {
            mul += term.rows;
            n_r += 1;
        } else {
            mul += term.cost();
            if term.row_major() {
                n_r += 1;
            } else {
                column_terms += 1;
            }
        }
    }
    mul + summation_cost(n_r, column_terms, b_nontrivial)
}

/// What the annealer minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Objective {
    /// `C(E)` of one expression `y = A x + b` (§1.2).
    Plain,
    /// `C(E1, E2)` of a Gauss-Seidel iteration for the system `A x = b` (§3.3).
    GaussSeidel,
}

/// Evaluates the cost of every equivalent form of one expression from its non-zero pattern,
/// without building the permuted matrix: fast enough to call once per annealing move
/// (O(nnz + n^2) for n block rows).
#[derive(Debug, Clone)]
pub struct CostModel {
    m: usize,
    n: usize,
    /// Non-zeros of A as (row, column) in the expression's own order.
    nonzeros: Vec<(usize, usize)>,
    /// The indices `r` with `b_r != 0`.
    b_nonzero: Vec<usize>,
    /// Scratch: the block masks, n x n, row-major (E, or E2 for Gauss-Seidel).
    masks: Vec<u16>,
    /// Scratch: the block masks of E1 (Gauss-Seidel only).
    lower: Vec<u16>,
    /// Scratch: which block rows have a non-trivial b.
    b_blocks: Vec<bool>,
}

impl CostModel {
    /// The model of `expr`'s pattern.
    pub fn new(expr: &LinearExpr) -> Self {
        let m = expr.size();
        let n = expr.blocks();
        CostModel {
            m,
            n,
            nonzeros: expr.nonzeros(),
            b_nonzero: (0..m).filter(|&r| expr.b_entry(r) != 0.0).collect(),
            masks: vec![0; n * n],
            lower: vec![0; n * n],
            b_blocks: vec![false; n],
        }
    }

    /// The size m of the expression.
    pub fn size(&self) -> usize {
        self.m
    }

    /// The cost of the expression permuted so that `position[r]` is where variable `r` goes
    /// (the inverse of a [`LinearExpr::permute`] argument).
    pub fn cost(&mut self, position: &[usize], objective: Objective) -> usize {
        let n = self.n;
        self.masks.fill(0);
        self.lower.fill(0);
        self.b_blocks.fill(false);
        for &(r, c) in &self.nonzeros {
            let (p, q) = (position[r], position[c]);
            let bit = 1u16 << (4 * (p % 4) + q % 4);
            let block = (p / 4) * n + q / 4;
            match objective {
                Objective::Plain => self.masks[block] |= bit,
                // E1 = -D^-1 L (strictly below the diagonal), E2 = -D^-1 U (strictly above);
                // the diagonal D itself costs nothing.
                Objective::GaussSeidel if p > q => self.lower[block] |= bit,
                Objective::GaussSeidel if p < q => self.masks[block] |= bit,
                Objective::GaussSeidel => {}
            }
        }
        for &r in &self.b_nonzero {
            self.b_blocks[position[r] / 4] = true;
        }
        (0..n)
            .map(|i| {
                let row = &self.masks[i * n..(i + 1) * n];
                match objective {
                    Objective::Plain => block_row_cost(row, self.b_blocks[i], None),
                    // C(E1, E2): E1 has no b and row-major diagonal blocks, E2 carries b2.
                    Objective::GaussSeidel => {
                        block_row_cost(&self.lower[i * n..(i + 1) * n], false, Some(i))
                            + block_row_cost(row, self.b_blocks[i], None)
                    }
                }
            })
            .sum()
    }
}

impl LinearExpr {
    /// `C(E)`: the number of four-wide instructions that evaluate this expression in its
    /// current order (spec §1.2); [`LinearExpr::instructions`] lists them.
    pub fn cost(&self) -> usize {
        let identity: Vec<usize> = (0..self.size()).collect();
        CostModel::new(self).cost(&identity, Objective::Plain)
    }

    /// `C(E1, E2)` of the Gauss-Seidel iteration for the system `A x = b` in the current order
    /// (spec §1.2, paper §3.3): `E1: y = -D^-1 L x^(l)` and `E2: y = -D^-1 U x^(l-1) + D^-1 b`,
    /// costed as two expressions, with every non-null diagonal block of E1 evaluated row-major
    /// (`r_R` DP4s) so that the new components come out in order. Only the pattern matters:
    /// `A`'s diagonal is ignored, its strict lower triangle is E1's, its strict upper E2's.
    pub fn cost_gauss_seidel(&self) -> usize {
        let identity: Vec<usize> = (0..self.size()).collect();
        CostModel::new(self).cost(&identity, Objective::GaussSeidel)
    }

    /// The costs of block term `T_ij` (blocks of 4 x 4, zero-padded), in the current order.
    pub fn block_cost(&self, i: usize, j: usize) -> BlockCost {
        BlockCost::of_mask(self.block_mask(i, j))
    }

    /// The non-zero pattern of block `A_ij`: bit `4 r + c` for its row `r`, column `c`.
    pub fn block_mask(&self, i: usize, j: usize) -> u16 {
        let m = self.size();
        let mut mask = 0;
        for r in 0..4 {
            for c in 0..4 {
                let (row, col) = (4 * i + r, 4 * j + c);
                if row < m && col < m && self.entry(row, col) != 0.0 {
                    mask |= 1 << (4 * r + c);
                }
            }
        }
        mask
    }

    /// Whether quadruple `b_i` has a non-zero entry.
    pub fn b_nontrivial(&self, i: usize) -> bool {
        (4 * i..(4 * i + 4).min(self.size())).any(|r| self.b_entry(r) != 0.0)
    }
}
