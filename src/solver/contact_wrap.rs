//! How the contact system lies in its textures: the contacts wrapped into segments of at most
//! one texture's height, side by side. ONE rule, written here and in
//! `shaders/solvers/contact_layout.{wgsl,glsl}` (the kernels' twin), nowhere else:
//!
//! ```text
//!   contact c  ->  texel row c % H of segment c / H      (H <= the texture limit L)
//!   a matrix with w texel columns per contact keeps contact c's in columns w (c / H) .. + w
//!
//!   impulses, b, 1/diag(A), mu: w = 1       A: w = 4K (blocks) or 4C (dense), lists: w = K/4
//!          seg 0    seg 1    seg 2                  seg 0          seg 1          seg 2
//!        +--------+--------+--------+             +--------------+--------------+--------------+
//!  y = 0 | c0     | cH     | c2H    |       y = 0 | c0: 4K cols  | cH: 4K cols  | c2H          |
//!  y = 1 | c1     | cH+1   | c2H+1  |       y = 1 | c1           | cH+1         | c2H+1        |
//!   ...  |  ...   |  ...   |  ...   |        ...  |  ...         |  ...         |  ...         |
//!  H - 1 | cH-1   | c2H-1  | (pad)  |       H - 1 | cH-1         | c2H-1        | (pad)        |
//!        +--------+--------+--------+             +--------------+--------------+--------------+
//!   each texel: one contact's (normal, tangent 1, tangent 2, 0) rows, as with one segment
//! ```
//!
//! As few segments as hold the contacts (S = ceil(C / L)), as even as they can be
//! (H = ceil(C / S)); the last segment's spare rows are padding contacts: no neighbours (lists
//! of -1), zero b, 1/diag(A) and mu, so their impulses stay zero. A system of one segment is
//! the plain layout (`ContactLayout`): one contact per texel row. The dense layout never wraps:
//! its 4C columns fit only where C <= L / 4.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// Where a frame's contacts lie in the contact system's textures (see the module's diagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContactWrap {
    /// Contacts C.
    pub contacts: usize,
    /// Texel rows of every texture H: contacts per segment.
    pub height: usize,
    /// Segments S side by side.
    pub segments: usize,
}

impl ContactWrap {
    /// The wrap of `contacts` contacts whose widest matrix has `width` texel columns per contact
    /// in textures of at most `limit` texels a side; [`Error::TooLarge`] (the texture the
    /// fewest segments would need) where the segments side by side are wider than `limit`.
    pub fn new(contacts: usize, width: usize, limit: usize) -> Result<Self> {
        if contacts == 0 || width == 0 {
            return Err(Error::ZeroDimension {
                rows: 4 * contacts,
                cols: width,
            });
        }
        let segments = contacts.div_ceil(limit.max(1));
        let height = contacts.div_ceil(segments);
        if segments * width > limit {
            return Err(Error::TooLarge {
                rows: 4 * height,
                cols: segments * width,
                width: segments * width,
                height,
                max: limit as u32,
            });
        }
        Ok(ContactWrap {
            contacts,
            height,
            segments,
        })
    }

    /// Contact places, padding included: S H.
    pub fn slots(&self) -> usize {
        self.segments * self.height
    }

    /// Where contact `c` lies: (segment, texel row).
    pub fn place(&self, c: usize) -> (usize, usize) {
        (c / self.height, c % self.height)
    }

    /// The shape (rows, columns) of a wrapped matrix of `width` columns per contact.
    pub fn shape(&self, width: usize) -> (usize, usize) {
        (4 * self.height, self.segments * width)
    }

    /// Wraps row-major data of `width` columns and 4 rows per contact (the plain layout, 4C
    /// rows) into the wrapped matrix's row-major data ([`Self::shape`]); padding contacts get
    /// `pad` everywhere. One segment is the plain layout itself: `data`, not a copy (a frame's
    /// A is tens of megabytes). Several are written segment after segment, each value once.
    pub fn wrap<'a>(&self, data: &'a [f32], width: usize, pad: f32) -> Cow<'a, [f32]> {
        debug_assert_eq!(data.len(), 4 * self.contacts * width);
        if self.segments == 1 {
            return Cow::Borrowed(data);
        }
        let (rows, cols) = self.shape(width);
        let mut out = vec![pad; rows * cols];
        // Segment s is the plain layout's rows 4 s H .. 4 (s + 1) H, in columns s w .. + w.
        for (segment, source) in data.chunks(rows * width).enumerate() {
            let place = out[segment * width..].chunks_mut(cols);
            for (values, row) in source.chunks_exact(width).zip(place) {
                // Element by element: a copy call per row of a few values cost more than them.
                for (to, from) in row.iter_mut().zip(values) {
                    *to = *from;
                }
            }
        }
        Cow::Owned(out)
    }

    /// The impulses in contact order (4C values, 4 per contact) from the wrapped vector's
    /// row-major data (4H x S).
    pub fn unwrap(&self, data: &[f32]) -> Vec<f32> {
        debug_assert_eq!(data.len(), 4 * self.height * self.segments);
        let mut out = vec![0.0; 4 * self.contacts];
        // Segment s's contacts are out's 4 s H .. 4 (s + 1) H, data's column s.
        for (segment, place) in out.chunks_mut(4 * self.height).enumerate() {
            let column = data[segment..].iter().step_by(self.segments);
            for (value, wrapped) in place.iter_mut().zip(column) {
                *value = *wrapped;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_is_the_plain_layout() {
        let w = ContactWrap::new(5, 8, 64).unwrap();
        assert_eq!((w.height, w.segments, w.slots()), (5, 1, 5));
        let data: Vec<f32> = (0..4 * 5 * 8).map(|v| v as f32).collect();
        assert_eq!(w.wrap(&data, 8, -1.0), data);
        let x: Vec<f32> = (0..20).map(|v| v as f32).collect();
        assert_eq!(w.unwrap(&x), x);
    }

    #[test]
    fn contacts_wrap_into_even_segments_and_back() {
        // 9 contacts in textures of 8: 2 segments of 5 rows, one padding place.
        let w = ContactWrap::new(9, 2, 8).unwrap();
        assert_eq!((w.height, w.segments, w.slots()), (5, 2, 10));
        assert_eq!(
            (w.place(0), w.place(4), w.place(5), w.place(8)),
            ((0, 0), (0, 4), (1, 0), (1, 3))
        );
        assert_eq!(w.shape(2), (20, 4));
        // Element (4c + r, k) of the plain data is 1000 c + 10 r + k.
        let plain: Vec<f32> = (0..36)
            .flat_map(|row| (0..2).map(move |k| (1000 * (row / 4) + 10 * (row % 4) + k) as f32))
            .collect();
        let wrapped = w.wrap(&plain, 2, -1.0);
        let (rows, cols) = w.shape(2);
        assert_eq!(wrapped.len(), rows * cols);
        for y in 0..w.height {
            for r in 0..4 {
                for segment in 0..w.segments {
                    for k in 0..2 {
                        let c = segment * w.height + y;
                        let want = if c < 9 {
                            (1000 * c + 10 * r + k) as f32
                        } else {
                            -1.0
                        };
                        assert_eq!(wrapped[(4 * y + r) * cols + 2 * segment + k], want);
                    }
                }
            }
        }
        // The impulses (one column per contact) come back in contact order.
        let x: Vec<f32> = (0..36).map(|v| v as f32).collect();
        assert_eq!(w.unwrap(&w.wrap(&x, 1, 0.0)), x);
    }

    #[test]
    fn every_size_wraps_within_the_limit() {
        for contacts in 1..200 {
            for (width, limit) in [(1, 4), (2, 16), (12, 64), (28, 112)] {
                let Ok(w) = ContactWrap::new(contacts, width, limit) else {
                    assert!(contacts.div_ceil(limit) * width > limit);
                    continue;
                };
                assert!(w.height <= limit && w.segments * width <= limit);
                assert!(w.slots() >= contacts && w.slots() - contacts < w.segments);
                let (rows, cols) = w.shape(width);
                assert!(crate::layout::Layout::fits(rows, cols, limit));
            }
        }
    }

    #[test]
    fn too_wide_is_a_clear_error() {
        // 100 contacts of 112 columns each in textures of 64: past any wrap.
        assert!(matches!(
            ContactWrap::new(100, 112, 64),
            Err(Error::TooLarge { max: 64, .. })
        ));
        assert!(matches!(
            ContactWrap::new(0, 4, 64),
            Err(Error::ZeroDimension { .. })
        ));
    }
}
