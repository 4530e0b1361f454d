//! The linear expression `E: y = A x + b` of the SIMD-optimization paper (spec §1.1) and its equivalent forms
//! (§1.3): the same expression with the rows and columns of `A` and the entries of `b` put in
//! another order.

use crate::error::{Error, Result};

/// The largest `m` accepted: a 4096 x 4096 expression is 128 MiB of f64 and 1M block terms,
/// already far beyond what one shader program holds.
pub const MAX_SIZE: usize = 4096;

/// `y = A x + b` with a constant m x m matrix `A` (f64, row-major) and an optional constant
/// `b` (spec §1.1).
///
/// The cost model (§1.2) splits `A` into 4 x 4 blocks and the vectors into quadruples; when
/// `m` is not a multiple of 4, the last block row and column are padded with zeros ("at the ends
/// of the matrix and vectors"). Permutations act on `0..m` only; the padding stays at the end.
///
/// ```text
///        x_0   x_1   x_2          quadruples of x
///      +-----+-----+-----+
/// y_0  |A_00 |A_01 |A_02 |        y_i = sum_j A_ij x_j + b_i      (Eq. 1)
///      +-----+-----+-----+
/// y_1  |A_10 |A_11 |A_12 |        T_ij = A_ij x_j, one block term  (Eq. 2)
///      +-----+-----+-----+
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinearExpr {
    m: usize,
    a: Vec<f64>,
    b: Option<Vec<f64>>,
    /// `perm[p]` = the index, in the order given to [`LinearExpr::from_dense`], of the
    /// variable now at position `p`.
    perm: Vec<usize>,
}

impl LinearExpr {
    /// The expression `y = A x + b` for a row-major m x m matrix `a` and an optional `b` of
    /// length `m`. Fails with [`Error::Argument`] when `m` is 0 or above [`MAX_SIZE`], when
    /// `a` does not hold m * m values or `b` not m, or when an entry is NaN or infinite.
    pub fn from_dense(a: &[f64], m: usize, b: Option<&[f64]>) -> Result<Self> {
        if m == 0 || m > MAX_SIZE {
            return Err(Error::Argument(format!(
                "a linear expression needs a size m from 1 to {MAX_SIZE}, got {m}"
            )));
        }
        if a.len() != m * m {
            return Err(Error::Argument(format!(
                "A must be square: an {m} x {m} matrix needs {} values, got {}",
                m * m,
                a.len()
            )));
        }
        if let Some(pos) = a.iter().position(|v| !v.is_finite()) {
            return Err(Error::Argument(format!(
                "A[{}][{}] is {}: every coefficient must be a finite number",
                pos / m,
                pos % m,
                a[pos]
            )));
        }
        if let Some(b) = b {
            if b.len() != m {
                return Err(Error::Argument(format!(
                    "b must hold m = {m} values, got {}",
                    b.len()
                )));
            }
            if let Some(pos) = b.iter().position(|v| !v.is_finite()) {
                return Err(Error::Argument(format!(
                    "b[{pos}] is {}: every entry must be a finite number",
                    b[pos]
                )));
            }
        }
        Ok(LinearExpr {
            m,
            a: a.to_vec(),
            b: b.map(<[f64]>::to_vec),
            perm: (0..m).collect(),
        })
    }

    /// The size m of the expression (A is m x m).
    pub fn size(&self) -> usize {
        self.m
    }

    /// The number n of quadruples, `ceil(m / 4)`: A is n x n blocks of 4 x 4 after padding.
    pub fn blocks(&self) -> usize {
        self.m.div_ceil(4)
    }

    /// The coefficient `a_rc` (row `r`, column `c`, in the current order).
    pub fn entry(&self, r: usize, c: usize) -> f64 {
        self.a[r * self.m + c]
    }

    /// `A`, row-major, in the current order.
    pub fn matrix(&self) -> &[f64] {
        &self.a
    }

    /// `b` in the current order, if the expression has one.
    pub fn b(&self) -> Option<&[f64]> {
        self.b.as_deref()
    }

    /// `b_r`, 0 when the expression has no `b`.
    pub fn b_entry(&self, r: usize) -> f64 {
        self.b.as_ref().map_or(0.0, |b| b[r])
    }

    /// Where each variable came from: entry `p` is the index, in the order given to
    /// [`LinearExpr::from_dense`], of the variable at position `p` (the identity until
    /// [`LinearExpr::permute`] is called).
    pub fn permutation(&self) -> &[usize] {
        &self.perm
    }

    /// The equivalent expression (§1.3) `y' = (P A P^T) x' + P b` with `perm[p]` = the index,
    /// in this expression, of the variable placed at position `p`; rows, columns and `b` move
    /// alike, so `y'_p = y_perm[p]`. Fails with [`Error::Argument`] unless `perm` is a
    /// permutation of `0..m`. Permutations compose: [`LinearExpr::permutation`] of the result
    /// still refers to the original order.
    pub fn permute(&self, perm: &[usize]) -> Result<LinearExpr> {
        check_permutation(perm, self.m)?;
        let m = self.m;
        let mut a = vec![0.0; m * m];
        for (p, &r) in perm.iter().enumerate() {
            for (q, &c) in perm.iter().enumerate() {
                a[p * m + q] = self.a[r * m + c];
            }
        }
        Ok(LinearExpr {
            m,
            a,
            b: self
                .b
                .as_ref()
                .map(|b| perm.iter().map(|&r| b[r]).collect()),
            perm: perm.iter().map(|&r| self.perm[r]).collect(),
        })
    }

    /// The non-zero coefficients as (row, column) pairs, row by row.
    pub fn nonzeros(&self) -> Vec<(usize, usize)> {
        let m = self.m;
        (0..m * m)
            .filter(|&k| self.a[k] != 0.0)
            .map(|k| (k / m, k % m))
            .collect()
    }

    /// Table 2's column (a): the scalar additions and multiplications of `A x + b` without
    /// SIMD, `sum over rows of (2 nnz - 1 + [b_r != 0])` (an empty row with `b_r = 0` counts 0).
    pub fn operations(&self) -> usize {
        (0..self.m)
            .map(|r| {
                let nnz = (0..self.m).filter(|&c| self.entry(r, c) != 0.0).count();
                let with_b = usize::from(self.b_entry(r) != 0.0);
                (2 * nnz + with_b).saturating_sub(1)
            })
            .sum()
    }

    /// `y = A x + b` in f64 (the reference the generated programs are checked against).
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        (0..self.m)
            .map(|r| {
                let row = &self.a[r * self.m..(r + 1) * self.m];
                row.iter().zip(x).map(|(a, x)| a * x).sum::<f64>() + self.b_entry(r)
            })
            .collect()
    }
}

/// Checks that `perm` is a permutation of `0..m`, with a message naming what is wrong.
pub fn check_permutation(perm: &[usize], m: usize) -> Result<()> {
    if perm.len() != m {
        return Err(Error::Argument(format!(
            "a permutation of an expression of size {m} needs {m} entries, got {}",
            perm.len()
        )));
    }
    let mut seen = vec![false; m];
    for (p, &r) in perm.iter().enumerate() {
        if r >= m {
            return Err(Error::Argument(format!(
                "permutation[{p}] = {r} is out of range: entries must be 0..{}",
                m - 1
            )));
        }
        if seen[r] {
            return Err(Error::Argument(format!(
                "permutation[{p}] = {r} repeats an index: each of 0..{} must appear once",
                m - 1
            )));
        }
        seen[r] = true;
    }
    Ok(())
}
