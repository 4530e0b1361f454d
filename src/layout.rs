//! How a matrix lives in a texture.
//!
//! An `rows x cols` row-major f32 matrix is stored in an RGBA32F texture of width `cols` and height
//! `ceil(rows / 4)`: texel `(x, y)` holds the four consecutive rows `4y .. 4y+3` of column `x`
//! (the ShaderX2 article, section 2.1). Rows past the end of the matrix are padding and always read as zero.
//!
//! ```text
//!   matrix 6 x 3 (row-major)          texture 3 x 2 (RGBA32F)
//!
//!        c0   c1   c2                      x=0        x=1        x=2
//!   r0 [ a00  a01  a02 ]            y=0  (a00,      (a01,      (a02,
//!   r1 [ a10  a11  a12 ]                  a10,       a11,       a12,
//!   r2 [ a20  a21  a22 ]                  a20,       a21,       a22,
//!   r3 [ a30  a31  a32 ]                  a30)       a31)       a32)
//!   r4 [ a40  a41  a42 ]            y=1  (a40,      (a41,      (a42,
//!   r5 [ a50  a51  a52 ]                  a50,       a51,       a52,
//!                                         0, 0)      0, 0)      0, 0)   <- padding rows
//! ```
//!
//! Packing column chunks (not row chunks) keeps a column vector dense: an n x 1 vector fills
//! `ceil(n/4)` texels completely instead of using one channel of n texels.

use crate::error::{Error, Result};

/// The shape of a matrix and the size of the texture that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Matrix rows.
    pub rows: usize,
    /// Matrix columns.
    pub cols: usize,
}

impl Layout {
    /// Checks the shape against the device's maximum texture side (in texels).
    pub fn new(rows: usize, cols: usize, max_texture_side: u32) -> Result<Self> {
        if rows == 0 || cols == 0 {
            return Err(Error::ZeroDimension { rows, cols });
        }
        let layout = Layout { rows, cols };
        if !Layout::fits(rows, cols, max_texture_side as usize) {
            return Err(Error::TooLarge {
                rows,
                cols,
                width: layout.width(),
                height: layout.height(),
                max: max_texture_side,
            });
        }
        Ok(layout)
    }

    /// Whether one texture of at most `max_side` texels a side holds a `rows x cols` matrix
    /// (`cols` texels wide, `ceil(rows / 4)` high).
    pub fn fits(rows: usize, cols: usize, max_side: usize) -> bool {
        cols <= max_side && rows.div_ceil(4) <= max_side
    }

    /// Texture width in texels: one texel column per matrix column.
    pub fn width(&self) -> usize {
        self.cols
    }

    /// Texture height in texels: four matrix rows per texel.
    pub fn height(&self) -> usize {
        self.rows.div_ceil(4)
    }

    /// Number of f32 values in the texture, padding included (4 per texel).
    pub fn padded_len(&self) -> usize {
        4 * self.width() * self.height()
    }

    /// Bytes of GPU memory the texture takes (16 per texel).
    pub fn bytes(&self) -> usize {
        4 * self.padded_len()
    }

    /// Where element `(i, j)` lives: index into the texel data as laid out by [`Layout::pack`].
    pub fn texel_index(&self, i: usize, j: usize) -> usize {
        let (y, channel) = (i / 4, i % 4);
        4 * (y * self.width() + j) + channel
    }

    /// Packs row-major matrix data into texel data (row of texels after row of texels, RGBA
    /// interleaved), padding rows with zeros. `data.len()` must be `rows * cols`.
    pub fn pack(&self, data: &[f32]) -> Vec<f32> {
        debug_assert_eq!(data.len(), self.rows * self.cols);
        let mut texels = vec![0.0; self.padded_len()];
        // Matrix row i is channel i % 4 of texel row i / 4: one sequential pass per row.
        for (i, row) in data.chunks_exact(self.cols).enumerate() {
            let start = 4 * (i / 4) * self.width();
            let texel_row = &mut texels[start..start + 4 * self.width()];
            for (texel, &v) in texel_row.chunks_exact_mut(4).zip(row) {
                texel[i % 4] = v;
            }
        }
        texels
    }

    /// Unpacks texel data into exactly `rows * cols` row-major values, dropping the padding.
    pub fn unpack(&self, texels: &[f32]) -> Vec<f32> {
        debug_assert_eq!(texels.len(), self.padded_len());
        let mut data = Vec::with_capacity(self.rows * self.cols);
        for i in 0..self.rows {
            let start = 4 * (i / 4) * self.width();
            let texel_row = &texels[start..start + 4 * self.width()];
            data.extend(texel_row.chunks_exact(4).map(|texel| texel[i % 4]));
        }
        data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_size_follows_the_seed() {
        let l = Layout::new(14, 30, 8192).unwrap();
        assert_eq!((l.width(), l.height()), (30, 4));
        let v = Layout::new(1, 1, 8192).unwrap();
        assert_eq!(
            (v.width(), v.height(), v.padded_len(), v.bytes()),
            (1, 1, 4, 16)
        );
        let l = Layout::new(8, 5, 8192).unwrap();
        assert_eq!(l.height(), 2);
    }

    #[test]
    fn four_rows_of_one_column_share_a_texel() {
        let l = Layout::new(6, 3, 16).unwrap();
        let data: Vec<f32> = (0..18).map(|v| v as f32).collect();
        let t = l.pack(&data);
        // texel (0,0) = column 0, rows 0..3
        assert_eq!(&t[0..4], &[0.0, 3.0, 6.0, 9.0]);
        // texel (2,0) = column 2, rows 0..3
        assert_eq!(&t[8..12], &[2.0, 5.0, 8.0, 11.0]);
        // texel (1,1) = column 1, rows 4..5 then zero padding
        assert_eq!(&t[16..20], &[13.0, 16.0, 0.0, 0.0]);
    }

    #[test]
    fn pack_then_unpack_is_identity_for_every_small_shape() {
        for rows in 1..=9 {
            for cols in 1..=6 {
                let l = Layout::new(rows, cols, 16).unwrap();
                let data: Vec<f32> = (0..rows * cols).map(|v| v as f32 * 0.5 - 3.0).collect();
                let t = l.pack(&data);
                assert_eq!(t.len(), l.padded_len());
                assert_eq!(l.unpack(&t), data);
                let nonzero_padding = (rows..4 * l.height())
                    .flat_map(|i| (0..cols).map(move |j| (i, j)))
                    .any(|(i, j)| t[l.texel_index(i, j)] != 0.0);
                assert!(!nonzero_padding);
            }
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(
            Layout::new(0, 3, 16),
            Err(Error::ZeroDimension { rows: 0, cols: 3 })
        );
        assert!(matches!(
            Layout::new(3, 17, 16),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            Layout::new(65, 1, 16),
            Err(Error::TooLarge { .. })
        ));
        assert!(Layout::new(64, 16, 16).is_ok());
    }
}
