//! Matrices larger than one texture: a grid of tiles.
//!
//! A texture holds at most `L` texels a side (the device's largest texture, or a smaller tile
//! limit set for tests and lessons), so one texture holds a matrix of up to `4L` rows and `L`
//! columns ([`crate::layout`]). A larger matrix is a grid of ordinary matrices, its tiles, each
//! at most `L x L` elements, row-major:
//!
//! ```text
//!              columns 0..L      L..2L     2L..cols
//!            +-------------+-------------+--------+
//! rows 0..L  |  tile (0,0) |  tile (0,1) | (0,2)  |   each tile: one RGBA32F texture,
//!            +-------------+-------------+--------+   4 rows of one column per texel
//! rows L..2L |  tile (1,0) |  tile (1,1) | (1,2)  |   (L/4 texels high, L wide)
//!            +-------------+-------------+--------+
//! rows 2L..  |  (2,0)      |  (2,1)      | (2,2)  |   the last row and column of tiles
//!            +-------------+-------------+--------+   are as large as what is left
//! ```
//!
//! Tiles are square in elements (not in texels), so that the inner dimension of a product is cut
//! at the same places in A's columns and in B's rows. Every operation on a grid is the same
//! operation on tiles: element-wise tile by tile, products as block sums
//! `C_ij = sum_p A_ip B_pj` (each block product by the kernel the caller asked for), A·x the same
//! with x's tiles, reductions as the sum (or maximum) over tiles. A result that fits one texture
//! is assembled into one (texel copies); a matrix that fits one texture but meets a grid is cut
//! into tiles the same way. A matrix is a grid exactly when it does not fit one texture.

use std::rc::Rc;

use super::pool::Pooled;
use super::Gpu;
use crate::backend::Format;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::matrix::Matrix;

/// The most elements a matrix may have (4 GiB of float32): past it, a clear error rather than
/// an allocation the GPU cannot make.
pub const MAX_ELEMENTS: usize = 1 << 30;

/// A clear error for a `rows x cols` matrix past [`MAX_ELEMENTS`].
pub(super) fn check_elements(rows: usize, cols: usize) -> Result<()> {
    if rows.saturating_mul(cols) > MAX_ELEMENTS {
        return Err(Error::Unsupported(format!(
            "a {rows}x{cols} matrix would need {:.1} GiB of GPU memory: texla holds at most 2^30 \
             elements (4 GiB) in one matrix",
            (rows as f64) * (cols as f64) * 4.0 / f64::from(1u32 << 30)
        )));
    }
    Ok(())
}

impl Matrix {
    /// How its texture stores the values (a grid: its tiles). Only an upload makes float16.
    pub fn format(&self) -> Format {
        match self.texture.downcast_ref::<Grid>() {
            Some(grid) => grid.tiles[0].format(),
            None => self
                .texture
                .downcast_ref::<Pooled>()
                .map_or(Format::F32, Pooled::format),
        }
    }
}

/// Tiles of at most `tile x tile` elements, row-major: a matrix too large for one texture (see
/// the module's diagram), or a matrix taken apart for an operation on grids ([`Gpu::blocks`]).
#[derive(Clone)]
pub(super) struct Grid {
    /// Tiles, row-major: `blocks.1` per row of tiles.
    pub(super) tiles: Vec<Matrix>,
    /// Rows and columns of tiles.
    pub(super) blocks: (usize, usize),
}

impl Grid {
    /// Tile (i, j).
    pub(super) fn at(&self, i: usize, j: usize) -> &Matrix {
        &self.tiles[i * self.blocks.1 + j]
    }
}

impl Gpu {
    /// The largest texture side this GPU uses: the device's, or the tile limit set by
    /// [`Gpu::set_tile_limit`]. A matrix of more than `4 x limit` rows or `limit` columns is a
    /// grid of tiles of at most `limit x limit` elements.
    pub fn tile_limit(&self) -> usize {
        self.tile_limit.get()
    }

    /// Uses textures of at most `side` texels a side from now on, as if the device allowed no
    /// more: small limits make tiling visible in tests and lessons. `side` must be a multiple
    /// of 4 from 4 to the device's largest texture.
    pub fn set_tile_limit(&self, side: usize) -> Result<()> {
        let max = self.capabilities().max_texture_size as usize;
        if side < 4 || side > max || !side.is_multiple_of(4) {
            return Err(Error::Argument(format!(
                "the tile limit must be a multiple of 4 from 4 to {max} (this device's largest \
                 texture), got {side}"
            )));
        }
        self.tile_limit.set(side);
        Ok(())
    }

    /// Whether a `rows x cols` matrix fits one texture.
    pub fn fits(&self, rows: usize, cols: usize) -> bool {
        Layout::fits(rows, cols, self.tile_limit())
    }

    /// Whether `m` is a grid of tiles (it does not fit one texture).
    pub fn is_tiled(m: &Matrix) -> bool {
        m.texture.is::<Grid>()
    }

    /// How many textures hold `m`.
    pub fn tile_count(m: &Matrix) -> usize {
        m.texture
            .downcast_ref::<Grid>()
            .map_or(1, |g| g.tiles.len())
    }

    /// The `rows x cols` matrix made of `blocks` (row-major, `tile x tile` elements each): one
    /// texture where it fits (the blocks copied into place), else a grid of them.
    pub(super) fn assemble(&self, rows: usize, cols: usize, blocks: Grid) -> Result<Matrix> {
        if blocks.tiles.len() == 1 {
            return Ok(blocks.tiles.into_iter().next().expect("one tile"));
        }
        let format = blocks.tiles[0].format();
        if !self.fits(rows, cols) {
            return Ok(Matrix {
                layout: Layout { rows, cols },
                owner: self.id,
                texture: Rc::new(blocks),
            });
        }
        let whole = self.alloc_as(self.layout(rows, cols)?, format)?;
        let tile = self.tile_limit();
        for i in 0..blocks.blocks.0 {
            for j in 0..blocks.blocks.1 {
                let b = blocks.at(i, j);
                let size = (b.layout.width(), b.layout.height());
                let to = (j * tile, i * tile / 4);
                let (src, dst) = (self.texture(b)?, self.texture(&whole)?);
                self.backend().copy_texels(src, (0, 0), dst, to, size)?;
            }
        }
        Ok(whole)
    }

    /// `m` as blocks of at most `tile x tile` elements: a grid's tiles, `m` itself where it is
    /// that small, else tiles cut out of its texture.
    pub(super) fn blocks(&self, m: &Matrix) -> Result<Grid> {
        if let Some(grid) = m.texture.downcast_ref::<Grid>() {
            return Ok(grid.clone());
        }
        let tile = self.tile_limit();
        let blocks = (m.rows().div_ceil(tile), m.cols().div_ceil(tile));
        if blocks == (1, 1) {
            return Ok(Grid {
                tiles: vec![m.clone()],
                blocks,
            });
        }
        let mut tiles = Vec::with_capacity(blocks.0 * blocks.1);
        for i in 0..blocks.0 {
            for j in 0..blocks.1 {
                let rows = tile.min(m.rows() - i * tile);
                let cols = tile.min(m.cols() - j * tile);
                let t = self.alloc_as(self.layout(rows, cols)?, m.format())?;
                let size = (t.layout.width(), t.layout.height());
                let from = (j * tile, i * tile / 4);
                let (src, dst) = (self.texture(m)?, self.texture(&t)?);
                self.backend().copy_texels(src, from, dst, (0, 0), size)?;
                tiles.push(t);
            }
        }
        Ok(Grid { tiles, blocks })
    }

    /// The `rows x cols` matrix whose tile (i, j) is `make(i, j, tile rows, tile columns)`.
    pub(crate) fn tiled(
        &self,
        rows: usize,
        cols: usize,
        make: impl Fn(usize, usize, usize, usize) -> Result<Matrix>,
    ) -> Result<Matrix> {
        check_elements(rows, cols)?;
        let tile = self.tile_limit();
        let blocks = (rows.div_ceil(tile), cols.div_ceil(tile));
        let mut tiles = Vec::with_capacity(blocks.0 * blocks.1);
        for i in 0..blocks.0 {
            for j in 0..blocks.1 {
                tiles.push(make(
                    i,
                    j,
                    tile.min(rows - i * tile),
                    tile.min(cols - j * tile),
                )?);
            }
        }
        self.assemble(rows, cols, Grid { tiles, blocks })
    }

    /// An element-wise operation over tiles, where any input is a grid: `op` on the tiles at
    /// the same place of every input (all of one shape), each of its `outputs` results
    /// assembled. `None` where no input is a grid (the caller runs one pass).
    pub(crate) fn tile_wise(
        &self,
        inputs: &[&Matrix],
        outputs: usize,
        op: impl Fn(&[&Matrix]) -> Result<Vec<Matrix>>,
    ) -> Result<Option<Vec<Matrix>>> {
        if !inputs.iter().any(|m| Gpu::is_tiled(m)) {
            return Ok(None);
        }
        let all = inputs
            .iter()
            .map(|m| self.blocks(m))
            .collect::<Result<Vec<_>>>()?;
        let mut results: Vec<Vec<Matrix>> = vec![Vec::new(); outputs];
        for k in 0..all[0].tiles.len() {
            let tiles: Vec<&Matrix> = all.iter().map(|b| &b.tiles[k]).collect();
            for (result, tile) in results.iter_mut().zip(op(&tiles)?) {
                result.push(tile);
            }
        }
        let (rows, cols, blocks) = (inputs[0].rows(), inputs[0].cols(), all[0].blocks);
        results
            .into_iter()
            .map(|tiles| self.assemble(rows, cols, Grid { tiles, blocks }))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// A product over tiles, where `a` or `b` is a grid or the product does not fit one texture
    /// (`a b^T` of two tall matrices): `op(a) op(b)` (op transposing where
    /// `transpose` says) as block sums `C_ij = sum_p op(A)_ip op(B)_pj`, each block product by
    /// `block` (which gets the tiles as stored and transposes as the caller's kernel does), the
    /// sums by element-wise passes. `None` where all three fit one texture. Shapes are checked
    /// by the caller.
    pub(crate) fn tile_product(
        &self,
        a: &Matrix,
        b: &Matrix,
        transpose: (bool, bool),
        block: impl Fn(&Matrix, &Matrix) -> Result<Matrix>,
    ) -> Result<Option<Matrix>> {
        let (ta, tb) = transpose;
        let rows = if ta { a.cols() } else { a.rows() };
        let cols = if tb { b.rows() } else { b.cols() };
        if !Gpu::is_tiled(a) && !Gpu::is_tiled(b) && self.fits(rows, cols) {
            return Ok(None);
        }
        let (ab, bb) = (self.blocks(a)?, self.blocks(b)?);
        let a_at = |i, p| if ta { ab.at(p, i) } else { ab.at(i, p) };
        let b_at = |p, j| if tb { bb.at(j, p) } else { bb.at(p, j) };
        let inner = if ta { ab.blocks.0 } else { ab.blocks.1 };
        let add = crate::gpu::ops::add();
        self.tiled(rows, cols, |i, j, _, _| {
            let mut sum = block(a_at(i, 0), b_at(0, j))?;
            for p in 1..inner {
                let term = block(a_at(i, p), b_at(p, j))?;
                sum = self.map(&add, &[&sum, &term])?;
            }
            Ok(sum)
        })
        .map(Some)
    }

    /// `a^T` for a grid, or where `a^T` does not fit one texture (a tall `a`): tile (i, j) of
    /// the result is the transpose of tile (j, i).
    pub(crate) fn tile_transpose(&self, a: &Matrix) -> Result<Option<Matrix>> {
        if !Gpu::is_tiled(a) && self.fits(a.cols(), a.rows()) {
            return Ok(None);
        }
        let ab = self.blocks(a)?;
        self.tiled(a.cols(), a.rows(), |i, j, _, _| self.transpose(ab.at(j, i)))
            .map(Some)
    }

    /// Uploads row-major `data` of a matrix that does not fit one texture, tile by tile (its
    /// float16 range checked by the caller, over the whole array).
    pub(crate) fn upload_tiles(
        &self,
        data: &[f32],
        (rows, cols): (usize, usize),
        format: Format,
    ) -> Result<Matrix> {
        let tile = self.tile_limit();
        self.tiled(rows, cols, |i, j, r, c| {
            let mut part = Vec::with_capacity(r * c);
            for row in i * tile..i * tile + r {
                let start = row * cols + j * tile;
                part.extend_from_slice(&data[start..start + c]);
            }
            self.write_new(&part, (r, c), format)
        })
    }

    /// Reads a grid back, row-major, tile by tile.
    pub(crate) async fn read_tiles(&self, m: &Matrix) -> Result<Vec<f32>> {
        let blocks = self.blocks(m)?;
        let (tile, cols) = (self.tile_limit(), m.cols());
        let mut data = vec![0.0; m.rows() * cols];
        for i in 0..blocks.blocks.0 {
            for j in 0..blocks.blocks.1 {
                let t = blocks.at(i, j);
                let part = Box::pin(self.read(t)).await?;
                for (r, row) in part.chunks_exact(t.cols()).enumerate() {
                    let start = (i * tile + r) * cols + j * tile;
                    data[start..start + row.len()].copy_from_slice(row);
                }
            }
        }
        Ok(data)
    }
}
