//! A matrix whose data stays on the GPU.

use std::any::Any;
use std::rc::Rc;

use crate::layout::Layout;

/// An `rows x cols` f32 matrix held in a texture of the [`Gpu`](crate::gpu::Gpu) that
/// made it (float32, or float16 where it was uploaded so: [`Matrix::format`]). Cloning is
/// cheap and shares the texture, which is freed when the last clone drops.
#[derive(Clone)]
pub struct Matrix {
    pub(crate) layout: Layout,
    /// Id of the device that owns the texture.
    pub(crate) owner: u32,
    /// The backend's texture, type-erased so that the matrix type is the same on every backend.
    pub(crate) texture: Rc<dyn Any>,
}

impl Matrix {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.layout.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.layout.cols
    }

    /// Shape and texture layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

impl std::fmt::Debug for Matrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Matrix({}x{}, device {})",
            self.rows(),
            self.cols(),
            self.owner
        )
    }
}
