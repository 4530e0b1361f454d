//! Matrices made on the GPU: uploaded from row-major data, filled, the identity, a diagonal.

use super::Gpu;
use crate::error::{Error, Result};
use crate::kernels::{self, Expr, Program};
use crate::matrix::Matrix;

impl Gpu {
    /// Copies row-major `data` (`rows * cols` values) into a new GPU matrix.
    pub fn upload(&self, data: &[f32], rows: usize, cols: usize) -> Result<Matrix> {
        if !self.fits(rows, cols) && rows.checked_mul(cols) == Some(data.len()) {
            return self.upload_tiles(data, rows, cols);
        }
        let m = self.alloc_for(data.len(), rows, cols)?;
        self.backend().write(self.texture(&m)?, m.layout, data)?;
        Ok(m)
    }

    /// [`Gpu::upload`] from a JavaScript array (the page's upload), which a backend may read
    /// without copying it into this program's memory.
    pub fn upload_js(
        &self,
        data: &js_sys::Float32Array,
        rows: usize,
        cols: usize,
    ) -> Result<Matrix> {
        if !self.fits(rows, cols) && rows.checked_mul(cols) == Some(data.length() as usize) {
            return self.upload_tiles(&data.to_vec(), rows, cols);
        }
        let m = self.alloc_for(data.length() as usize, rows, cols)?;
        self.backend().write_js(self.texture(&m)?, m.layout, data)?;
        Ok(m)
    }

    /// A new `rows x cols` matrix for `len` uploaded values, or a clear error when they do not
    /// fill it.
    fn alloc_for(&self, len: usize, rows: usize, cols: usize) -> Result<Matrix> {
        if rows > 0 && cols > 0 && rows.checked_mul(cols) != Some(len) {
            return Err(Error::DataLength { len, rows, cols });
        }
        self.alloc(self.layout(rows, cols)?)
    }

    /// A `rows x cols` matrix of `value` (`fill(r, c, 0.0)` is the zero matrix).
    pub fn fill(&self, rows: usize, cols: usize, value: f32) -> Result<Matrix> {
        if rows > 0 && cols > 0 && !self.fits(rows, cols) {
            return self.tiled(rows, cols, |_, _, r, c| self.fill(r, c, value));
        }
        let expr = Expr::Const(value);
        self.run(
            Program::new(kernels::map(&expr), vec![], self.layout(rows, cols)?)
                .with_params(&[value]),
            &[],
        )
    }

    /// The `rows x cols` identity: ones where row == column.
    pub fn identity(&self, rows: usize, cols: usize) -> Result<Matrix> {
        if rows > 0 && cols > 0 && !self.fits(rows, cols) {
            return self.tiled(rows, cols, |i, j, r, c| match i == j {
                true => self.identity(r, c),
                false => self.fill(r, c, 0.0),
            });
        }
        self.run_kernel(kernels::IDENTITY, &[], self.layout(rows, cols)?)
    }

    /// The diagonal of a square matrix as a column vector.
    pub fn diagonal(&self, a: &Matrix) -> Result<Matrix> {
        if a.rows() != a.cols() {
            return Err(Error::Shape(format!(
                "the diagonal is taken of a square matrix, got {}x{}",
                a.rows(),
                a.cols()
            )));
        }
        if Gpu::is_tiled(a) {
            let blocks = self.blocks(a)?;
            return self.tiled(a.rows(), 1, |i, _, _, _| self.diagonal(blocks.at(i, i)));
        }
        self.run_kernel(kernels::DIAGONAL, &[a], self.layout(a.rows(), 1)?)
    }
}
