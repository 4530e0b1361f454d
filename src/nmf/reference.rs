//! The updates of [`super::factorize`] in float64 on the CPU, step for step (same order, same
//! eps, same normalisation), for the tests, the native benchmark and the page's check.
//! Matrices are row-major `Vec<f64>`.

use super::{NmfOptions, Order, Rule};

/// A row-major matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Dense {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Row-major values.
    pub data: Vec<f64>,
}

impl Dense {
    /// `rows x cols` from row-major `data`.
    pub fn new(rows: usize, cols: usize, data: Vec<f64>) -> Self {
        assert_eq!(data.len(), rows * cols, "a {rows}x{cols} matrix");
        Dense { rows, cols, data }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    /// `self^T other` when `transpose`, else `self other`.
    fn product(&self, other: &Dense, transpose: bool) -> Dense {
        let (rows, inner) = if transpose {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        };
        assert_eq!(inner, other.rows, "inner dimensions");
        let mut out = vec![0.0; rows * other.cols];
        for p in 0..inner {
            for i in 0..rows {
                let a = if transpose {
                    self.at(p, i)
                } else {
                    self.at(i, p)
                };
                if a == 0.0 {
                    continue;
                }
                let row = &mut out[i * other.cols..(i + 1) * other.cols];
                for (o, b) in row.iter_mut().zip(&other.data[p * other.cols..]) {
                    *o += a * b;
                }
            }
        }
        Dense::new(rows, other.cols, out)
    }

    /// `self other^T`.
    fn mul_tr(&self, other: &Dense) -> Dense {
        let mut out = vec![0.0; self.rows * other.rows];
        for i in 0..self.rows {
            let a = &self.data[i * self.cols..(i + 1) * self.cols];
            for j in 0..other.rows {
                let b = &other.data[j * other.cols..(j + 1) * other.cols];
                out[i * other.rows + j] = a.iter().zip(b).map(|(x, y)| x * y).sum();
            }
        }
        Dense::new(self.rows, other.rows, out)
    }

    /// Element-wise `f(self, b, c)`.
    fn zip3(&self, b: &Dense, c: &Dense, f: impl Fn(f64, f64, f64) -> f64) -> Dense {
        let data = (0..self.data.len())
            .map(|i| f(self.data[i], b.data[i], c.data[i]))
            .collect();
        Dense::new(self.rows, self.cols, data)
    }

    /// Sums of each column.
    fn column_sums(&self) -> Vec<f64> {
        let mut sums = vec![0.0; self.cols];
        for row in self.data.chunks_exact(self.cols) {
            sums.iter_mut().zip(row).for_each(|(s, x)| *s += x);
        }
        sums
    }

    /// `rows` copies of the row `row`.
    fn repeat(row: &[f64], rows: usize) -> Dense {
        Dense::new(rows, row.len(), row.repeat(rows))
    }
}

/// ||F - U V^T||_F^2.
pub fn error(f: &Dense, u: &Dense, v: &Dense) -> f64 {
    let uv = u.mul_tr(v);
    f.data
        .iter()
        .zip(&uv.data)
        .map(|(a, b)| (a - b) * (a - b))
        .sum()
}

/// `iterations` of the updates `options` describes (its `iterations` and `check_every` are not
/// used), from `u` and `v`; returns the new U and V.
pub fn iterate(
    f: &Dense,
    u: Dense,
    v: Dense,
    options: &NmfOptions,
    iterations: usize,
) -> (Dense, Dense) {
    let eps = f64::from(options.eps);
    let ratio = |a: f64, b: f64, c: f64| a * b / (c + eps);
    let update_v = |u: &Dense, v: &Dense| match options.rule {
        Rule::Euclidean => v.zip3(
            &f.product(u, true),
            &v.product(&u.product(u, true), false),
            ratio,
        ),
        Rule::Divergence => {
            let q = quotient(f, u, v, eps);
            v.zip3(
                &q.product(u, true),
                &Dense::repeat(&u.column_sums(), v.rows),
                ratio,
            )
        }
    };
    let update_u = |u: &Dense, v: &Dense| match options.rule {
        Rule::Euclidean => u.zip3(
            &f.product(v, false),
            &u.product(&v.product(v, true), false),
            ratio,
        ),
        Rule::Divergence => {
            let q = quotient(f, u, v, eps);
            u.zip3(
                &q.product(v, false),
                &Dense::repeat(&v.column_sums(), u.rows),
                ratio,
            )
        }
    };
    let (mut u, mut v) = (u, v);
    for _ in 0..iterations {
        (u, v) = match options.order {
            Order::Alternating => {
                let v = update_v(&u, &v);
                (update_u(&u, &v), v)
            }
            Order::Simultaneous => (update_u(&u, &v), update_v(&u, &v)),
        };
        if options.normalize {
            let sums = Dense::repeat(&u.column_sums(), u.rows);
            u = u.zip3(&sums, &sums, |a, s, _| a / (s + eps));
        }
    }
    (u, v)
}

/// F ./ (U V^T + eps).
fn quotient(f: &Dense, u: &Dense, v: &Dense, eps: f64) -> Dense {
    let uv = u.mul_tr(v);
    f.zip3(&uv, &uv, |a, b, _| a / (b + eps))
}
