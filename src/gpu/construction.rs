//! Matrices made on the GPU: uploaded from row-major data (float32, or float16 on request),
//! filled, the identity, a diagonal.

use super::Gpu;
use crate::backend::{halves, Format};
use crate::error::{Error, Result};
use crate::kernels::{self, Expr, Program};
use crate::matrix::Matrix;

/// `data` rounded to the nearest float16 values (ties to even): what a float16 upload of it
/// holds. A clear error where a finite value is beyond float16's range (from 65520 on).
pub fn float16(data: &[f32]) -> Result<Vec<f32>> {
    in_float16_range(data)?;
    Ok(halves(data)
        .into_iter()
        .map(|h| half::f16::from_bits(h).to_f32())
        .collect())
}

/// Whether `v` is finite and beyond float16's range (±65504): it would round to an infinity
/// (from 65520 on).
pub fn beyond_float16(v: f32) -> bool {
    let a = v.abs();
    (65520.0..=f32::MAX).contains(&a)
}

/// A clear error naming the first value of `data` [`beyond_float16`].
fn in_float16_range(data: &[f32]) -> Result<()> {
    match first_beyond_float16(data) {
        Some(i) => Err(beyond_at(i)),
        None => Ok(()),
    }
}

/// The index of the first value of `data` [`beyond_float16`]. A pass with no branch (which
/// wasm's SIMD takes four values at a time) says whether there is one; only then is it sought.
fn first_beyond_float16(data: &[f32]) -> Option<usize> {
    let any = data.iter().fold(false, |any, &v| any | beyond_float16(v));
    any.then(|| data.iter().position(|&v| beyond_float16(v)))
        .flatten()
}

/// The error of an upload whose value at `index` is [`beyond_float16`].
fn beyond_at(index: usize) -> Error {
    Error::Argument(format!(
        "value at index {index} is beyond float16's range of \u{b1}65504: upload it as float32"
    ))
}

impl Gpu {
    /// Copies row-major `data` (`rows * cols` values) into a new GPU matrix.
    pub fn upload(&self, data: &[f32], rows: usize, cols: usize) -> Result<Matrix> {
        self.upload_as(data, (rows, cols), Format::F32)
    }

    /// [`Gpu::upload`] stored as `format`: in float16 each value is rounded to the nearest
    /// float16 (see [`float16`]) and the matrix takes half the memory; every kernel reads it
    /// as float32 and computes in float32, and results are float32 matrices.
    pub fn upload_as(
        &self,
        data: &[f32],
        (rows, cols): (usize, usize),
        format: Format,
    ) -> Result<Matrix> {
        if format == Format::F16 {
            in_float16_range(data)?;
        }
        if !self.fits(rows, cols) && rows.checked_mul(cols) == Some(data.len()) {
            return self.upload_tiles(data, (rows, cols), format);
        }
        self.write_new(data, (rows, cols), format)
    }

    /// A new matrix of `format` holding `data`, which fits one texture and, for float16, is
    /// within its range: the upload's last step, for each tile of a grid too.
    pub(super) fn write_new(
        &self,
        data: &[f32],
        (rows, cols): (usize, usize),
        format: Format,
    ) -> Result<Matrix> {
        let m = self.alloc_for(data.len(), (rows, cols), format)?;
        // The backend rounds to float16 as it writes.
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
        self.upload_js_as(data, (rows, cols), Format::F32)
    }

    /// [`Gpu::upload_js`] stored as `format` (see [`Gpu::upload_as`]): a float16 upload checks
    /// its values' range a piece at a time, without a copy of the whole array in this
    /// program's memory.
    pub fn upload_js_as(
        &self,
        data: &js_sys::Float32Array,
        (rows, cols): (usize, usize),
        format: Format,
    ) -> Result<Matrix> {
        let len = data.length() as usize;
        if format == Format::F16 {
            const PIECE: usize = 1 << 14;
            let mut buffer = vec![0.0f32; len.clamp(1, PIECE)];
            for start in (0..len).step_by(PIECE) {
                let piece = &mut buffer[..(len - start).min(PIECE)];
                data.subarray(start as u32, (start + piece.len()) as u32)
                    .copy_to(piece);
                if let Some(i) = first_beyond_float16(piece) {
                    return Err(beyond_at(start + i));
                }
            }
        }
        if !self.fits(rows, cols) && rows.checked_mul(cols) == Some(len) {
            return self.upload_tiles(&data.to_vec(), (rows, cols), format);
        }
        let m = self.alloc_for(len, (rows, cols), format)?;
        self.backend().write_js(self.texture(&m)?, m.layout, data)?;
        Ok(m)
    }

    /// A new `rows x cols` matrix of `format` for `len` uploaded values, or a clear error when
    /// they do not fill it.
    fn alloc_for(
        &self,
        len: usize,
        (rows, cols): (usize, usize),
        format: Format,
    ) -> Result<Matrix> {
        check_length(len, (rows, cols))?;
        self.alloc_as(self.layout(rows, cols)?, format)
    }

    /// What an upload of `len` values as a `rows x cols` matrix checks before it writes: for a
    /// matrix held on the CPU whose texture is made on its first GPU use.
    pub fn check_upload(&self, len: usize, (rows, cols): (usize, usize)) -> Result<()> {
        check_length(len, (rows, cols))?;
        match self.fits(rows, cols) {
            true => self.layout(rows, cols).map(drop),
            false => super::tiles::check_elements(rows, cols),
        }
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

    /// A copy of `count` columns of `m` from column `first`: a copy of texels on the GPU, no
    /// pass. `m` must be one texture (not a grid of tiles).
    pub fn columns(&self, m: &Matrix, first: usize, count: usize) -> Result<Matrix> {
        if count == 0 || first + count > m.cols() || Gpu::is_tiled(m) {
            return Err(Error::Shape(format!(
                "columns {first} .. {} of a {}x{} matrix{}",
                first + count,
                m.rows(),
                m.cols(),
                if Gpu::is_tiled(m) { " of tiles" } else { "" }
            )));
        }
        let out = self.alloc_as(self.layout(m.rows(), count)?, m.format())?;
        let size = (count, m.layout.height());
        let backend = self.backend();
        backend.copy_texels(
            self.texture(m)?,
            (first, 0),
            self.texture(&out)?,
            (0, 0),
            size,
        )?;
        Ok(out)
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

/// A clear error where `len` values are not a `rows x cols` matrix's.
fn check_length(len: usize, (rows, cols): (usize, usize)) -> Result<()> {
    if rows > 0 && cols > 0 && rows.checked_mul(cols) != Some(len) {
        return Err(Error::DataLength { len, rows, cols });
    }
    Ok(())
}
