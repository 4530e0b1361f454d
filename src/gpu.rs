//! [`Gpu`]: the matrix operations, written once over any [`Backend`].

use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::backend::{Backend, Capabilities};
use crate::device::{Device, LocalFuture};
use crate::error::{Error, Result};
use crate::kernel::{Program, MATMUL};
use crate::layout::Layout;
use crate::matrix::Matrix;

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// Matrix operations on one backend. Validates every input, then hands programs to the backend.
pub struct Gpu<B: Backend> {
    backend: B,
    /// Tags this device's matrices, so that a matrix of another device is refused.
    id: u32,
}

impl<B: Backend> Gpu<B> {
    /// Wraps an open backend.
    pub fn new(backend: B) -> Self {
        Gpu {
            backend,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The texture of `m`, if `m` belongs to this device.
    fn texture<'m>(&self, m: &'m Matrix) -> Result<&'m B::Texture> {
        if m.owner != self.id {
            return Err(Error::ForeignMatrix);
        }
        m.texture.downcast_ref().ok_or(Error::ForeignMatrix)
    }

    /// A new, uninitialised matrix of the given shape.
    fn alloc(&self, layout: Layout) -> Result<Matrix> {
        let texture = self
            .backend
            .create_texture(layout.width(), layout.height())?;
        Ok(Matrix {
            layout,
            owner: self.id,
            texture: Rc::new(texture),
        })
    }

    /// Runs `program` into a new matrix of shape `program.output`.
    fn run(&self, program: Program, inputs: &[&Matrix]) -> Result<Matrix> {
        let textures = inputs
            .iter()
            .map(|m| self.texture(m))
            .collect::<Result<Vec<_>>>()?;
        let out = self.alloc(program.output)?;
        self.backend.run(&program, &textures, self.texture(&out)?)?;
        Ok(out)
    }
}

impl<B: Backend> Device for Gpu<B> {
    fn capabilities(&self) -> &Capabilities {
        self.backend.capabilities()
    }

    fn upload(&self, data: &[f32], rows: usize, cols: usize) -> Result<Matrix> {
        if rows > 0 && cols > 0 && rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::DataLength {
                len: data.len(),
                rows,
                cols,
            });
        }
        let layout = Layout::new(rows, cols, self.capabilities().max_texture_size)?;
        let m = self.alloc(layout)?;
        self.backend.write_texture(
            self.texture(&m)?,
            layout.width(),
            layout.height(),
            &layout.pack(data),
        )?;
        Ok(m)
    }

    fn mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        if a.cols() != b.rows() {
            return Err(Error::Shape(format!(
                "cannot multiply a {}x{} matrix by a {}x{} matrix: the inner dimensions {} and {} differ",
                a.rows(),
                a.cols(),
                b.rows(),
                b.cols(),
                a.cols(),
                b.rows()
            )));
        }
        let output = Layout::new(a.rows(), b.cols(), self.capabilities().max_texture_size)?;
        self.run(
            Program::new(MATMUL, vec![a.layout, b.layout], output),
            &[a, b],
        )
    }

    fn square(&self, m: &Matrix) -> Result<Matrix> {
        if m.rows() != m.cols() {
            return Err(Error::Shape(format!(
                "cannot square a {}x{} matrix: it is not square",
                m.rows(),
                m.cols()
            )));
        }
        self.mul(m, m)
    }

    fn read<'a>(&'a self, m: &'a Matrix) -> LocalFuture<'a, Result<Vec<f32>>> {
        Box::pin(async move {
            let l = m.layout;
            let texels = self
                .backend
                .read_texture(self.texture(m)?, l.width(), l.height())
                .await?;
            Ok(l.unpack(&texels))
        })
    }

    fn finish(&self) -> LocalFuture<'_, Result<()>> {
        Box::pin(self.backend.finish())
    }
}
