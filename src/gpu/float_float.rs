//! Float-float matrices: each element the unevaluated sum `hi + lo` of two float32s with
//! `|lo| <= ulp(hi) / 2`, about 48 significant bits (float64 has 53), at twice the memory and
//! some 20 to 40 times the arithmetic of float32. A [`DdMatrix`] is a pair of ordinary
//! matrices, `hi` and `lo`, each its own RGBA32F texture of the usual layout, so every kernel
//! of `shaders/float_float/` reads both halves of its operands at the same texel and writes
//! both halves of its result as two render targets of one pass.
//!
//! ```text
//!  float64 x  ──split on the CPU──▶  hi = f32(x)          lo = f32(x - hi)
//!                                    texture hi           texture lo
//!                                    texel (c, y): rows   texel (c, y): rows
//!                                    4y..4y+3, column c   4y..4y+3, column c
//!  read back: x ≈ f64(hi) + f64(lo)  (exact in float64: 24 + 24 bits fit in 53)
//! ```
//!
//! Operations, methods of the view [`FloatFloat`] (`gpu.float_float()`): upload from and read
//! back to f64, `s X + t Y` (add, sub, scale, CG's updates), products `A B` and `A x`, and
//! `dot` reduced in float-float. All run as fragment passes on both backends. A float-float matrix past one texture is two grids of tiles, `hi`'s and
//! `lo`'s cut at the same places (`super::tiles`); every operation then runs tile by tile, the
//! block sums of a product added in float-float and a dot's tiles summed in float64.

use super::base::same_shape;
use super::products::{check_inner, check_vector};
use super::tiles::Grid;
use super::{Gpu, MATVEC_BLOCK};
use crate::error::{Error, Result};
use crate::kernels::{self, Kernel, Program};
use crate::layout::Layout;
use crate::matrix::Matrix;

/// A float-float matrix: the element (i, j) is `hi[i, j] + lo[i, j]` (two float32 matrices of
/// one shape). Cloning is cheap and shares the textures.
#[derive(Debug, Clone)]
pub struct DdMatrix {
    /// The high halves: each element rounded to float32.
    pub hi: Matrix,
    /// The low halves: what `hi` left out, rounded to float32.
    pub lo: Matrix,
}

impl DdMatrix {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.hi.rows()
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.hi.cols()
    }
}

/// `x` as the float-float pair `(hi, lo)`: `hi = f32(x)`, `lo = f32(x - hi)` (`x - hi` is exact
/// in float64). A clear error for NaN, infinities and values beyond float32's range, which
/// float-float shares.
pub fn split(x: f64) -> Result<(f32, f32)> {
    let hi = x as f32;
    if !hi.is_finite() {
        return Err(Error::Argument(format!(
            "{x} cannot be a float-float number: it must be finite and within float32's range \
             (|x| <= {:e})",
            f32::MAX
        )));
    }
    Ok((hi, (x - f64::from(hi)) as f32))
}

impl Gpu {
    /// The float-float operations of this GPU: `gpu.float_float().add(&x, &y)`, on
    /// [`DdMatrix`] operands.
    pub fn float_float(&self) -> FloatFloat<'_> {
        FloatFloat { gpu: self }
    }
}

/// A [`Gpu`] seen as a float-float machine ([`Gpu::float_float`]): upload and read back as f64,
/// `s X + t Y`, products and dot, each on [`DdMatrix`] operands. Copying it is free.
#[derive(Clone, Copy)]
pub struct FloatFloat<'g> {
    gpu: &'g Gpu,
}

impl FloatFloat<'_> {
    /// Copies row-major float64 `data` (`rows * cols` values) into a new float-float matrix,
    /// each value split on the CPU into `hi + lo`. NaN, infinities and values beyond float32's
    /// range are refused with the index of the first one.
    pub fn upload(&self, data: &[f64], rows: usize, cols: usize) -> Result<DdMatrix> {
        let mut hi = Vec::with_capacity(data.len());
        let mut lo = Vec::with_capacity(data.len());
        for (i, &x) in data.iter().enumerate() {
            let (h, l) =
                split(x).map_err(|e| Error::Argument(format!("element {i} of the data: {e}")))?;
            hi.push(h);
            lo.push(l);
        }
        Ok(DdMatrix {
            hi: self.gpu.upload(&hi, rows, cols)?,
            lo: self.gpu.upload(&lo, rows, cols)?,
        })
    }

    /// Reads a float-float matrix back as float64: `hi + lo` for each of its `rows * cols`
    /// elements, row-major (two read-backs).
    pub async fn read(&self, m: &DdMatrix) -> Result<Vec<f64>> {
        let hi = self.gpu.read(&m.hi).await?;
        let lo = self.gpu.read(&m.lo).await?;
        Ok(hi
            .iter()
            .zip(&lo)
            .map(|(&h, &l)| f64::from(h) + f64::from(l))
            .collect())
    }

    /// A `rows x cols` float-float matrix of zeros.
    pub fn zeros(&self, rows: usize, cols: usize) -> Result<DdMatrix> {
        Ok(DdMatrix {
            hi: self.gpu.fill(rows, cols, 0.0)?,
            lo: self.gpu.fill(rows, cols, 0.0)?,
        })
    }

    /// `s x + t y` element by element in float-float, for float64 factors `s` and `t` (each
    /// split into a float-float pair), in one pass.
    pub fn combine(&self, s: f64, x: &DdMatrix, t: f64, y: &DdMatrix) -> Result<DdMatrix> {
        same_shape("a float-float element-wise operation", &x.hi, &y.hi)?;
        let (sh, sl) = split(s)?;
        let (th, tl) = split(t)?;
        if Gpu::is_tiled(&x.hi) || Gpu::is_tiled(&y.hi) {
            let (xb, yb) = (self.blocks(x)?, self.blocks(y)?);
            return self.tiled(x.rows(), x.cols(), |i, j| {
                self.combine(s, &tile(&xb, i, j), t, &tile(&yb, i, j))
            });
        }
        self.run(
            kernels::ff_linear(),
            &[x, y],
            x.hi.layout,
            &[sh, sl, th, tl],
        )
    }

    /// `x + y` in float-float.
    pub fn add(&self, x: &DdMatrix, y: &DdMatrix) -> Result<DdMatrix> {
        self.combine(1.0, x, 1.0, y)
    }

    /// `x - y` in float-float.
    pub fn sub(&self, x: &DdMatrix, y: &DdMatrix) -> Result<DdMatrix> {
        self.combine(1.0, x, -1.0, y)
    }

    /// `x * c` in float-float for a float64 factor `c` (split into hi + lo).
    pub fn scale(&self, x: &DdMatrix, c: f64) -> Result<DdMatrix> {
        self.combine(c, x, 0.0, x)
    }

    /// `x + y * c` in float-float (CG's updates).
    pub fn add_scaled(&self, x: &DdMatrix, y: &DdMatrix, c: f64) -> Result<DdMatrix> {
        self.combine(1.0, x, c, y)
    }

    /// `a * b` in float-float, one output texel per fragment (the teaching kernel's shape, two
    /// render targets), on both backends.
    pub fn mul(&self, a: &DdMatrix, b: &DdMatrix) -> Result<DdMatrix> {
        check_inner(&a.hi, &b.hi)?;
        if let Some(c) = self.tile_product(a, b, |a, b| self.mul(a, b))? {
            return Ok(c);
        }
        let out = self.gpu.layout(a.rows(), b.cols())?;
        self.run(kernels::ff_matmul(), &[a, b], out, &[])
    }

    /// `a * x` in float-float for a column vector `x`, blocked as [`MatVecKernel::Blocked`](super::MatVecKernel::Blocked):
    /// partial sums over blocks of [`MATVEC_BLOCK`] columns, then their sum (two passes).
    pub fn mul_vec(&self, a: &DdMatrix, x: &DdMatrix) -> Result<DdMatrix> {
        check_vector(&a.hi, &x.hi)?;
        if let Some(y) = self.tile_product(a, x, |a, x| self.mul_vec(a, x))? {
            return Ok(y);
        }
        let blocks = a.cols().div_ceil(MATVEC_BLOCK);
        let partial = self.run(
            kernels::ff_matvec_partial(),
            &[a, x],
            self.gpu.layout(a.rows(), blocks)?,
            &[MATVEC_BLOCK as f32],
        )?;
        self.run(
            kernels::ff_sum_cols(),
            &[&partial],
            self.gpu.layout(a.rows(), 1)?,
            &[],
        )
    }

    /// `sum x_ij y_ij` (`x^T y` for vectors) of two float-float matrices of one shape, reduced
    /// on the GPU in float-float (16-fold passes, then the four lanes); only the pair (hi, lo)
    /// is read back, as one float64.
    pub async fn dot(&self, x: &DdMatrix, y: &DdMatrix) -> Result<f64> {
        same_shape("dot", &x.hi, &y.hi)?;
        if Gpu::is_tiled(&x.hi) || Gpu::is_tiled(&y.hi) {
            // Each tile's dot in float-float, their sum in float64 (53 bits, past the 48).
            let (xb, yb) = (self.blocks(x)?, self.blocks(y)?);
            let (rows, cols) = xb.0.blocks;
            let mut sum = 0.0;
            for i in 0..rows {
                for j in 0..cols {
                    sum += Box::pin(self.dot(&tile(&xb, i, j), &tile(&yb, i, j))).await?;
                }
            }
            return Ok(sum);
        }
        let mut partial: Option<DdMatrix> = None;
        loop {
            let current = partial.as_ref().map_or(x.hi.layout, |p| p.hi.layout);
            if partial.is_some() && current.width() == 1 && current.height() == 1 {
                break;
            }
            let out = self.gpu.layout(
                4 * current.height().div_ceil(4),
                current.width().div_ceil(4),
            )?;
            partial = Some(match &partial {
                None => self.run(kernels::ff_reduce(true), &[x, y], out, &[])?,
                Some(p) => self.run(kernels::ff_reduce(false), &[p], out, &[])?,
            });
        }
        let p = partial.expect("the loop runs at least once");
        let pair = self.gpu.run(
            Program::new(
                kernels::ff_combine(),
                vec![p.hi.layout, p.lo.layout],
                self.gpu.layout(2, 1)?,
            ),
            &[&p.hi, &p.lo],
        )?;
        let v = self.gpu.read(&pair).await?;
        Ok(f64::from(v[0]) + f64::from(v[1]))
    }

    /// `m`'s halves as blocks of the tile size, cut at the same places ([`Gpu::blocks`]).
    fn blocks(&self, m: &DdMatrix) -> Result<(Grid, Grid)> {
        Ok((self.gpu.blocks(&m.hi)?, self.gpu.blocks(&m.lo)?))
    }

    /// The `rows x cols` float-float matrix whose tile (i, j) is `make(i, j)`: its halves
    /// assembled as two grids (or two single textures where the result fits one).
    fn tiled(
        &self,
        rows: usize,
        cols: usize,
        make: impl Fn(usize, usize) -> Result<DdMatrix>,
    ) -> Result<DdMatrix> {
        let tile = self.gpu.tile_limit();
        let blocks = (rows.div_ceil(tile), cols.div_ceil(tile));
        let (mut his, mut los) = (Vec::new(), Vec::new());
        for i in 0..blocks.0 {
            for j in 0..blocks.1 {
                let t = make(i, j)?;
                his.push(t.hi);
                los.push(t.lo);
            }
        }
        Ok(DdMatrix {
            hi: self.gpu.assemble(rows, cols, Grid { tiles: his, blocks })?,
            lo: self.gpu.assemble(rows, cols, Grid { tiles: los, blocks })?,
        })
    }

    /// A float-float product over tiles where `a` or `b` is a grid or the result does not fit
    /// one texture, as [`Gpu::tile_product`] does for float32: block sums
    /// `C_ij = sum_p A_ip B_pj`, each block by `block`, added in float-float. `None` otherwise.
    fn tile_product(
        &self,
        a: &DdMatrix,
        b: &DdMatrix,
        block: impl Fn(&DdMatrix, &DdMatrix) -> Result<DdMatrix>,
    ) -> Result<Option<DdMatrix>> {
        if !Gpu::is_tiled(&a.hi) && !Gpu::is_tiled(&b.hi) && self.gpu.fits(a.rows(), b.cols()) {
            return Ok(None);
        }
        let (ab, bb) = (self.blocks(a)?, self.blocks(b)?);
        let inner = ab.0.blocks.1;
        self.tiled(a.rows(), b.cols(), |i, j| {
            let mut sum = block(&tile(&ab, i, 0), &tile(&bb, 0, j))?;
            for p in 1..inner {
                sum = self.add(&sum, &block(&tile(&ab, i, p), &tile(&bb, p, j))?)?;
            }
            Ok(sum)
        })
        .map(Some)
    }

    /// Runs a float-float kernel: the hi and lo of each operand bound in turn, `params` set,
    /// the two render targets returned as the result's hi and lo.
    fn run(
        &self,
        kernel: Kernel,
        operands: &[&DdMatrix],
        output: Layout,
        params: &[f32],
    ) -> Result<DdMatrix> {
        let inputs: Vec<&Matrix> = operands.iter().flat_map(|m| [&m.hi, &m.lo]).collect();
        let layouts = inputs.iter().map(|m| m.layout).collect();
        let program = Program::new(kernel, layouts, output).with_params(params);
        let mut outs = self.gpu.run_multi(program, &inputs)?;
        let lo = outs.pop().expect("two outputs");
        let hi = outs.pop().expect("two outputs");
        Ok(DdMatrix { hi, lo })
    }
}

/// Tile (i, j) of a float-float matrix taken apart by [`FloatFloat::blocks`].
fn tile(blocks: &(Grid, Grid), i: usize, j: usize) -> DdMatrix {
    DdMatrix {
        hi: blocks.0.at(i, j).clone(),
        lo: blocks.1.at(i, j).clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_48_bits_and_refuses_what_float32_cannot_hold() {
        let x = std::f64::consts::PI;
        let (hi, lo) = split(x).unwrap();
        assert_eq!(hi, std::f32::consts::PI);
        let back = f64::from(hi) + f64::from(lo);
        assert!((back - x).abs() <= x * 2f64.powi(-48), "{back} {x}");
        // Integers below 2^48 split exactly.
        let n = (1u64 << 48) - 3;
        let (hi, lo) = split(n as f64).unwrap();
        assert_eq!(f64::from(hi) + f64::from(lo), n as f64);
        for bad in [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e39] {
            assert!(split(bad).is_err(), "{bad}");
        }
    }
}
