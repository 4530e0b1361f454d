//! [`Gpu`]: the matrix operations, written once over any [`Backend`].

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::backend::{Backend, BackendKind, Capabilities};
use crate::device::{Counts, Device, LocalFuture};
use crate::error::{Error, Result};
use crate::kernels::{self, Kernel, Program, Reduction};
use crate::kernels::{Expr, Func2};
use crate::layout::Layout;
use crate::matrix::Matrix;
use crate::pool::{MemoryStats, Pool, Pooled};

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// Columns per block of the blocked matrix-vector product's first pass.
pub const MATVEC_BLOCK: usize = 64;

/// Matrix operations on one backend. Validates every input, then hands programs to the backend.
pub struct Gpu<B: Backend> {
    backend: B,
    /// Tags this device's matrices, so that a matrix of another device is refused.
    id: u32,
    pool: Rc<RefCell<Pool<B>>>,
    /// The kernel of the last pass, for `Device::last_shader`.
    last_kernel: RefCell<Option<Kernel>>,
    /// Passes run and read-backs made so far.
    counts: Cell<Counts>,
}

impl<B: Backend> Gpu<B> {
    /// Wraps an open backend.
    pub fn new(backend: B) -> Self {
        Gpu {
            backend,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            pool: Pool::new(),
            last_kernel: RefCell::new(None),
            counts: Cell::new(Counts::default()),
        }
    }

    /// The backend this device runs on.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The texture of `m`, if `m` belongs to this device.
    fn texture<'m>(&self, m: &'m Matrix) -> Result<&'m B::Texture> {
        if m.owner != self.id {
            return Err(Error::ForeignMatrix);
        }
        m.texture
            .downcast_ref::<Pooled<B>>()
            .map(Pooled::texture)
            .ok_or(Error::ForeignMatrix)
    }

    fn layout(&self, rows: usize, cols: usize) -> Result<Layout> {
        Layout::new(rows, cols, self.capabilities().max_texture_size)
    }

    /// A matrix of the given shape with a texture from the pool, contents undefined.
    fn alloc(&self, layout: Layout) -> Result<Matrix> {
        let texture = Pool::take(&self.pool, &self.backend, layout.width(), layout.height())?;
        Ok(Matrix {
            layout,
            owner: self.id,
            texture: Rc::new(texture),
        })
    }

    /// Runs `program` into a new matrix of shape `program.output`.
    fn run(&self, program: Program, inputs: &[&Matrix]) -> Result<Matrix> {
        Ok(self.run_multi(program, inputs)?.remove(0))
    }

    /// Runs `program` into one new matrix per output of its kernel, in one pass.
    fn run_multi(&self, program: Program, inputs: &[&Matrix]) -> Result<Vec<Matrix>> {
        let textures = inputs
            .iter()
            .map(|m| self.texture(m))
            .collect::<Result<Vec<_>>>()?;
        let outs = (0..program.kernel.outputs)
            .map(|_| self.alloc(program.output))
            .collect::<Result<Vec<_>>>()?;
        let targets = outs
            .iter()
            .map(|m| self.texture(m))
            .collect::<Result<Vec<_>>>()?;
        self.backend.run(&program, &textures, &targets)?;
        *self.last_kernel.borrow_mut() = Some(program.kernel);
        let mut c = self.counts.get();
        c.passes += 1;
        self.counts.set(c);
        Ok(outs)
    }

    /// Runs a kernel without parameters whose inputs are `inputs`.
    fn run_kernel(&self, kernel: Kernel, inputs: &[&Matrix], output: Layout) -> Result<Matrix> {
        let layouts = inputs.iter().map(|m| m.layout).collect();
        self.run(Program::new(kernel, layouts, output), inputs)
    }

    /// Reduces every element of `a` (with `b` for a dot product): 16-fold passes down to one
    /// texel, then its four components. Returns a 1 x 1 matrix.
    fn reduce(&self, kind: Reduction, a: &Matrix, b: Option<&Matrix>) -> Result<Matrix> {
        let mut inputs = vec![a];
        inputs.extend(b);
        let later = if kind == Reduction::Dot {
            Reduction::Sum
        } else {
            kind
        };
        let mut partial: Option<Matrix> = None;
        loop {
            let current = partial.as_ref().map_or(a.layout, |p| p.layout);
            if partial.is_some() && current.width() == 1 && current.height() == 1 {
                break;
            }
            let w = current.width().div_ceil(4);
            let h = current.height().div_ceil(4);
            let out = self.layout(4 * h, w)?;
            let next = match &partial {
                None => self.run_kernel(kind.pass(), &inputs, out)?,
                Some(p) => self.run_kernel(later.pass(), &[p], out)?,
            };
            partial = Some(next);
        }
        let p = partial.expect("the loop runs at least once");
        self.run_kernel(later.last(), &[&p], self.layout(1, 1)?)
    }

    /// Checks that `inputs` fit `expr` (count, one shape) and returns their layouts.
    fn map_inputs(&self, expr: &Expr, inputs: &[&Matrix]) -> Result<Vec<Layout>> {
        let needed = expr.input_count();
        if inputs.len() != needed {
            return Err(Error::Expr(format!(
                "\"{expr}\" reads {needed} matrices but {} were given",
                inputs.len()
            )));
        }
        let Some(first) = inputs.first() else {
            return Err(Error::Expr(format!(
                "\"{expr}\" reads no matrix: use fill for a constant"
            )));
        };
        for m in &inputs[1..] {
            same_shape("an element-wise expression", first, m)?;
        }
        Ok(inputs.iter().map(|m| m.layout).collect())
    }

    async fn read_scalar(&self, m: Matrix) -> Result<f32> {
        Ok(self.read(&m).await?[0])
    }

    /// The chunk depth of the compute-path product: 8, measured fastest on an H100 (the
    /// native benchmark tries the others).
    pub fn tiling(&self) -> usize {
        8
    }

    /// `a * b` on the compute path with chunks of `bk` of the inner dimension (8, 16 or 32).
    pub fn mul_compute_tiled(&self, a: &Matrix, b: &Matrix, bk: usize) -> Result<Matrix> {
        check_inner(a, b)?;
        if !kernels::TILED_CHUNKS.contains(&bk) {
            return Err(Error::Unsupported(format!(
                "the compute-path product takes chunks of 8, 16 or 32, not {bk}"
            )));
        }
        let bytes = kernels::tiled_workgroup_bytes(bk);
        if self.capabilities().compute && bytes > self.capabilities().max_workgroup_storage {
            return Err(Error::Unsupported(format!(
                "chunks of {bk} need {bytes} bytes of workgroup memory, this device allows {}",
                self.capabilities().max_workgroup_storage
            )));
        }
        self.run_kernel(
            kernels::matmul_tiled(bk),
            &[a, b],
            self.layout(a.rows(), b.cols())?,
        )
    }

    /// `a * b` with the fast fragment kernel writing `targets` render targets (clamped to what
    /// the backend allows and to the columns of b).
    pub fn mul_fast_targets(&self, a: &Matrix, b: &Matrix, targets: usize) -> Result<Matrix> {
        check_inner(a, b)?;
        let n = b.cols();
        let out = self.layout(a.rows(), n)?;
        let targets = targets
            .min(self.capabilities().max_render_targets)
            .clamp(1, n);
        // Slabs of w columns, as few as cover n.
        let w = n.div_ceil(targets);
        let targets = n.div_ceil(w);
        if targets == 1 {
            // One target is the teaching kernel.
            return self.mul(a, b);
        }
        let program = Program::new(
            kernels::matmul_fast(targets),
            vec![a.layout, b.layout],
            self.layout(a.rows(), w)?,
        );
        let slabs = self.run_multi(program, &[a, b])?;
        let c = self.alloc(out)?;
        for (t, slab) in slabs.iter().enumerate() {
            let x = t * w;
            self.backend.copy_columns(
                self.texture(slab)?,
                self.texture(&c)?,
                x,
                w.min(n - x),
                out.height(),
            )?;
        }
        Ok(c)
    }
}

fn same_shape(what: &str, a: &Matrix, b: &Matrix) -> Result<()> {
    if a.layout == b.layout {
        Ok(())
    } else {
        Err(Error::Shape(format!(
            "{what} needs matrices of the same shape, got {}x{} and {}x{}",
            a.rows(),
            a.cols(),
            b.rows(),
            b.cols()
        )))
    }
}

/// `A x` needs x to be a column vector of A's width.
fn check_vector(a: &Matrix, x: &Matrix) -> Result<()> {
    if x.cols() != 1 || x.rows() != a.cols() {
        return Err(Error::Shape(format!(
            "A x needs x to be a {}x1 vector for a {}x{} matrix A, got {}x{}",
            a.cols(),
            a.rows(),
            a.cols(),
            x.rows(),
            x.cols()
        )));
    }
    Ok(())
}

fn check_square(m: &Matrix) -> Result<()> {
    if m.rows() != m.cols() {
        return Err(Error::Shape(format!(
            "cannot square a {}x{} matrix: it is not square",
            m.rows(),
            m.cols()
        )));
    }
    Ok(())
}

/// `a * b` needs a.cols() == b.rows().
fn check_inner(a: &Matrix, b: &Matrix) -> Result<()> {
    if a.cols() == b.rows() {
        return Ok(());
    }
    Err(Error::Shape(format!(
        "cannot multiply a {}x{} matrix by a {}x{} matrix: the inner dimensions {} and {} differ",
        a.rows(),
        a.cols(),
        b.rows(),
        b.cols(),
        a.cols(),
        b.rows()
    )))
}

fn inner_mismatch(a: &Matrix, b: &Matrix, op: &str, ka: usize, kb: usize) -> Error {
    Error::Shape(format!(
        "cannot compute {op} of a {}x{} matrix A and a {}x{} matrix B: the inner dimensions {ka} and {kb} differ",
        a.rows(),
        a.cols(),
        b.rows(),
        b.cols()
    ))
}

impl<B: Backend> Device for Gpu<B> {
    fn capabilities(&self) -> &Capabilities {
        self.backend.capabilities()
    }

    fn run(&self, program: Program, inputs: &[&Matrix]) -> Result<Matrix> {
        Gpu::run(self, program, inputs)
    }

    fn upload(&self, data: &[f32], rows: usize, cols: usize) -> Result<Matrix> {
        if rows > 0 && cols > 0 && rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::DataLength {
                len: data.len(),
                rows,
                cols,
            });
        }
        let layout = self.layout(rows, cols)?;
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
        check_inner(a, b)?;
        self.run_kernel(kernels::MATMUL, &[a, b], self.layout(a.rows(), b.cols())?)
    }

    fn mul_compute(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.mul_compute_tiled(a, b, self.tiling())
    }

    fn mul_fast(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        let targets = self
            .capabilities()
            .max_render_targets
            .min(kernels::FAST_TARGETS);
        self.mul_fast_targets(a, b, targets)
    }

    fn square(&self, m: &Matrix) -> Result<Matrix> {
        check_square(m)?;
        self.mul(m, m)
    }

    fn square_fast(&self, m: &Matrix) -> Result<Matrix> {
        check_square(m)?;
        self.mul_fast(m, m)
    }

    fn tr_mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        if a.rows() != b.rows() {
            return Err(inner_mismatch(a, b, "A^T B", a.rows(), b.rows()));
        }
        self.run_kernel(kernels::TR_MUL, &[a, b], self.layout(a.cols(), b.cols())?)
    }

    fn mul_tr(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        if a.cols() != b.cols() {
            return Err(inner_mismatch(a, b, "A B^T", a.cols(), b.cols()));
        }
        self.run_kernel(kernels::MUL_TR, &[a, b], self.layout(a.rows(), b.rows())?)
    }

    fn transpose(&self, a: &Matrix) -> Result<Matrix> {
        self.run_kernel(kernels::TRANSPOSE, &[a], self.layout(a.cols(), a.rows())?)
    }

    fn mul_vec(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        check_vector(a, x)?;
        let blocks = a.cols().div_ceil(MATVEC_BLOCK);
        let partial = self.run(
            Program::new(
                kernels::MATVEC_PARTIAL,
                vec![a.layout, x.layout],
                self.layout(a.rows(), blocks)?,
            )
            .with_params(&[MATVEC_BLOCK as f32]),
            &[a, x],
        )?;
        self.run_kernel(kernels::SUM_COLS, &[&partial], self.layout(a.rows(), 1)?)
    }

    fn mul_vec_naive(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        if x.cols() != 1 {
            return Err(Error::Shape(format!(
                "A x needs x to be a column vector, got {}x{}",
                x.rows(),
                x.cols()
            )));
        }
        self.mul(a, x)
    }

    fn mul_vec_compute(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        check_vector(a, x)?;
        self.capabilities()
            .needs_compute("the compute-path matrix-vector product")?;
        self.run_kernel(kernels::MATVEC_TILED, &[a, x], self.layout(a.rows(), 1)?)
    }

    fn map(&self, expr: &Expr, inputs: &[&Matrix]) -> Result<Matrix> {
        expr.check()?;
        let layouts = self.map_inputs(expr, inputs)?;
        let output = inputs[0].layout;
        self.run(
            Program::new(kernels::map(expr), layouts, output).with_params(&expr.constants()),
            inputs,
        )
    }

    fn map2(&self, first: &Expr, second: &Expr, inputs: &[&Matrix]) -> Result<(Matrix, Matrix)> {
        let both = Expr::call2(crate::kernels::Func2::Add, first.clone(), second.clone());
        both.check()?;
        let layouts = self.map_inputs(&both, inputs)?;
        let output = inputs[0].layout;
        let mut outs = self.run_multi(
            Program::new(kernels::map2(first, second), layouts, output)
                .with_params(&both.constants()),
            inputs,
        )?;
        let second = outs.pop().expect("two outputs");
        Ok((outs.pop().expect("two outputs"), second))
    }

    fn map_mut(&self, expr: &Expr, this: &mut Matrix, others: &[&Matrix]) -> Result<()> {
        let mut inputs = vec![&*this];
        inputs.extend_from_slice(others);
        let result = self.map(expr, &inputs)?;
        *this = result;
        Ok(())
    }
    fn fill(&self, rows: usize, cols: usize, value: f32) -> Result<Matrix> {
        let expr = Expr::Const(value);
        self.run(
            Program::new(kernels::map(&expr), vec![], self.layout(rows, cols)?)
                .with_params(&[value]),
            &[],
        )
    }

    fn identity(&self, rows: usize, cols: usize) -> Result<Matrix> {
        self.run_kernel(kernels::IDENTITY, &[], self.layout(rows, cols)?)
    }

    fn dot<'a>(&'a self, a: &'a Matrix, b: &'a Matrix) -> LocalFuture<'a, Result<f32>> {
        Box::pin(async move {
            same_shape("dot", a, b)?;
            let s = self.reduce(Reduction::Dot, a, Some(b))?;
            self.read_scalar(s).await
        })
    }

    fn sum_all<'a>(&'a self, a: &'a Matrix) -> LocalFuture<'a, Result<f32>> {
        Box::pin(async move {
            let s = self.reduce(Reduction::Sum, a, None)?;
            self.read_scalar(s).await
        })
    }

    fn max_abs<'a>(&'a self, a: &'a Matrix) -> LocalFuture<'a, Result<f32>> {
        Box::pin(async move {
            let s = self.reduce(Reduction::MaxAbs, a, None)?;
            self.read_scalar(s).await
        })
    }

    fn diagonal(&self, a: &Matrix) -> Result<Matrix> {
        if a.rows() != a.cols() {
            return Err(Error::Shape(format!(
                "the diagonal is taken of a square matrix, got {}x{}",
                a.rows(),
                a.cols()
            )));
        }
        self.run_kernel(kernels::DIAGONAL, &[a], self.layout(a.rows(), 1)?)
    }

    fn read<'a>(&'a self, m: &'a Matrix) -> LocalFuture<'a, Result<Vec<f32>>> {
        Box::pin(async move {
            let l = m.layout;
            let texels = self
                .backend
                .read_texture(self.texture(m)?, l.width(), l.height())
                .await?;
            let mut c = self.counts.get();
            c.readbacks += 1;
            self.counts.set(c);
            Ok(l.unpack(&texels))
        })
    }

    fn finish(&self) -> LocalFuture<'_, Result<()>> {
        Box::pin(self.backend.finish())
    }

    fn memory(&self) -> MemoryStats {
        self.pool.borrow().stats()
    }

    fn counts(&self) -> Counts {
        self.counts.get()
    }

    fn release_pooled(&self) {
        self.pool.borrow_mut().clear();
    }

    fn draw_scene(&self, scene: &crate::scene::Scene) -> Result<()> {
        self.backend.draw(scene)
    }

    fn scene_canvas(&self) -> Result<web_sys::HtmlCanvasElement> {
        self.backend.canvas()
    }

    fn reset_peak(&self) {
        self.pool.borrow_mut().reset_peak();
    }

    fn last_shader(&self) -> Option<String> {
        let kernel = self.last_kernel.borrow();
        let k = kernel.as_ref()?;
        Some(match self.capabilities().backend {
            BackendKind::WebGpu => k.wgsl_source(),
            BackendKind::WebGl2 => k.glsl_source(),
        })
    }
}

/// Element-wise expressions of the seed's operation set, built once here so that the device,
/// the JS API and the tests share them.
pub mod ops {
    use super::*;

    fn input(i: usize) -> Expr {
        Expr::Input(i)
    }

    /// `a` (a copy).
    pub fn copy() -> Expr {
        input(0)
    }

    /// `a + b`.
    pub fn add() -> Expr {
        Expr::call2(Func2::Add, input(0), input(1))
    }

    /// `a - b`.
    pub fn sub() -> Expr {
        Expr::call2(Func2::Sub, input(0), input(1))
    }

    /// `a .* b`.
    pub fn component_mul() -> Expr {
        Expr::call2(Func2::Mul, input(0), input(1))
    }

    /// `a * c`.
    pub fn scale(c: f32) -> Expr {
        Expr::call2(Func2::Mul, input(0), Expr::Const(c))
    }

    /// `max(a, c)`.
    pub fn max_scalar(c: f32) -> Expr {
        Expr::call2(Func2::Max, input(0), Expr::Const(c))
    }

    /// `a + b * c` (seed 000's `mad(a, b, c)`; with a = this, `this += b * c`).
    pub fn add_scaled(c: f32) -> Expr {
        Expr::call2(
            Func2::Add,
            input(0),
            Expr::call2(Func2::Mul, input(1), Expr::Const(c)),
        )
    }

    /// `a + b .* c` (with a = this, seed 000's `this += a .* b`).
    pub fn add_component_mul() -> Expr {
        Expr::call2(
            Func2::Add,
            input(0),
            Expr::call2(Func2::Mul, input(1), input(2)),
        )
    }

    /// `a + (b + c) .* d` (seed 000's `madad`).
    pub fn madad() -> Expr {
        Expr::call2(
            Func2::Add,
            input(0),
            Expr::call2(
                Func2::Mul,
                Expr::call2(Func2::Add, input(1), input(2)),
                input(3),
            ),
        )
    }
}
