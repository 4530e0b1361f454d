//! Products: `A B` by the teaching, fast fragment, compute and registers kernels or by
//! accumulation passes, `op(A) op(B)` with transposes, `A^T`, and `A x` blocked, naive and on
//! the compute path.
//!
//! A kernel is data: [`ProductKernel`] (and [`MatVecKernel`] for `A x`) names it with its
//! settings, and [`Gpu::mul_with`] runs it through one match. [`Gpu::mul`], [`Gpu::square`]
//! and [`Gpu::mul_vec`] (what users and the solvers call) take [`ProductKernel::Auto`]: the
//! fastest kernel for the device at hand, chosen from its capabilities
//! ([`Gpu::product_kernel`]). A new kernel costs its shader, its kernel file, one enum value
//! and one match arm.

pub mod cpu;
mod split;

use super::Gpu;
use crate::error::{Error, Result};
use crate::kernels::{self, Program};
use crate::matrix::Matrix;
use split::{auto_chunk, split_k};

/// Columns per block of the blocked matrix-vector product's first pass.
pub const MATVEC_BLOCK: usize = 64;

/// The kernel a product `A B` runs on, with its settings: what [`Gpu::mul_with`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProductKernel {
    /// The fastest kernel here, as [`Gpu::product_kernel`] chooses it from the capabilities.
    #[default]
    Auto,
    /// One output texel per fragment: the ShaderX2 article's MOP (a 4 x 4 block of A times one texel of B)
    /// for each step of k, the kernel the page teaches with.
    Teaching,
    /// The fast fragment kernel: several output texels per fragment, one per render target, A's
    /// texels fetched once for all of them; then the slabs are copied into one matrix.
    Fast {
        /// Render targets written (clamped to what the backend allows, at most
        /// [`kernels::FAST_TARGETS`], and to the columns of B; one is the teaching kernel).
        targets: usize,
    },
    /// The tiled compute kernel (WebGPU only): workgroup memory, 8 x 8 outputs per thread,
    /// chunks of the inner dimension through workgroup memory.
    Compute {
        /// The chunk depth: 8, 16 or 32 ([`kernels::TILED_CHUNKS`]).
        chunk: usize,
        /// The inner dimension split into 1 to 4 slices summed by a second pass; `None` splits
        /// where the output alone would leave the GPU half idle (`split_k`).
        slices: Option<usize>,
        /// Columns of C a workgroup computes, 128 or 64 ([`kernels::TILED_WIDTHS`]; 64 takes
        /// chunks of 16 or 32); `None` chooses with the split (`split_k`).
        width: Option<usize>,
    },
    /// The compute kernel without workgroup memory and barrier (WebGPU only): `rows` texel
    /// rows x `cols` columns of C per invocation, in registers (what a software adapter runs
    /// fastest; [`kernels::matmul_registers`]).
    Registers {
        /// Texel rows (4 elements each) per invocation, 1 to 8.
        rows: usize,
        /// Columns per invocation, 1 to 32.
        cols: usize,
    },
    /// Float16 matrices on cooperative matrices, the tensor cores of an NVIDIA GPU (natively
    /// only, where [`Capabilities::tensor`](crate::backend::Capabilities::tensor) says so):
    /// tiles of 16 x 16 x 16, products exact, sums in float32. Both operands must be float16
    /// (an upload's [`Format::F16`](crate::backend::Format::F16)); [`ProductKernel::Auto`]
    /// takes it for two of them (`gpu/tensor_cores.rs`).
    Tensor,
    /// On the CPU, of values this program holds (`gpu/products/cpu.rs`: four lanes of wasm
    /// SIMD, blocked summation): what a page's `matmul` takes by default on a software adapter
    /// ([`Gpu::matmul_kernel`]) where both operands' values are held on the CPU. It takes no
    /// texture: [`Gpu::mul_with`] refuses it.
    Cpu,
    /// Accumulation passes, the way a GPU without loops had to (the thesis, section 3.2; the
    /// ShaderX2 article's MOPs per pass): `ceil(k / per_pass)` passes, each adding `per_pass` inner indices to
    /// the partial product of the pass before (two textures, ping-pong). The teaching path: one
    /// pass is always faster.
    Passes {
        /// Inner indices per pass, at least 1.
        per_pass: usize,
    },
}

impl ProductKernel {
    /// The fast fragment kernel with as many render targets as the backend allows.
    pub const FAST: ProductKernel = ProductKernel::Fast {
        targets: kernels::FAST_TARGETS,
    };

    /// The compute kernel as [`ProductKernel::Auto`] runs it where the device allows 32 KiB of
    /// workgroup memory: chunks of 32. Each chunk is summed from zero and added to the running
    /// sums once (blocked summation); with that, on an H100 natively, chunks of 32 make 39.5 and
    /// 42.9 TFLOPS at n = 2048 and 4096, chunks of 16 29.4 and 30.3, chunks of 8 26.5 and 26.8
    /// (`bench/records/h100/products/blocked-sum-2026-11-26.log`). Before (one running sum) 16
    /// was the fastest: 44.6-44.8 TFLOPS at 4096 (`native-unrolled-chunks-2026-11-24.log`).
    /// The inner dimension is split by size (`split_k`).
    pub const COMPUTE: ProductKernel = ProductKernel::Compute {
        chunk: 32,
        slices: None,
        width: None,
    };

    /// The registers kernel as [`ProductKernel::Auto`] runs it: 4 texel rows x 32 columns of C
    /// per invocation. In headless Chromium on SwiftShader (2 cores) 4 x 32 beat 4 x 16 by
    /// 11-14% at n = 1024, and 8 x 16 and 8 x 32 by 1-10%
    /// (`bench/records/browser/registers-blocks-2026-11-24.log`).
    pub const REGISTERS: ProductKernel = ProductKernel::Registers { rows: 4, cols: 32 };

    /// Accumulation passes of one inner index each, the thesis's.
    pub const PASSES: ProductKernel = ProductKernel::Passes { per_pass: 1 };

    /// The names of the kernels JavaScript may choose, as [`ProductKernel::name`] gives them
    /// ([`ProductKernel::Tensor`], which no browser offers, is left out).
    pub const NAMES: [&'static str; 7] = [
        "auto",
        "teaching",
        "fast",
        "compute",
        "registers",
        "cpu",
        "passes",
    ];

    /// The name used in the API and on the page: "auto", "teaching", "fast", "compute",
    /// "registers", "tensor", "cpu" or "passes" (the settings left out).
    pub fn name(self) -> &'static str {
        match self {
            ProductKernel::Auto => "auto",
            ProductKernel::Teaching => "teaching",
            ProductKernel::Fast { .. } => "fast",
            ProductKernel::Compute { .. } => "compute",
            ProductKernel::Registers { .. } => "registers",
            ProductKernel::Tensor => "tensor",
            ProductKernel::Cpu => "cpu",
            ProductKernel::Passes { .. } => "passes",
        }
    }

    /// The kernel of that name (one of [`ProductKernel::NAMES`]) with its default settings
    /// ([`ProductKernel::FAST`], [`ProductKernel::COMPUTE`], ...).
    pub fn named(name: &str) -> Option<ProductKernel> {
        Some(match name {
            "auto" => ProductKernel::Auto,
            "teaching" => ProductKernel::Teaching,
            "fast" => ProductKernel::FAST,
            "compute" => ProductKernel::COMPUTE,
            "registers" => ProductKernel::REGISTERS,
            "cpu" => ProductKernel::Cpu,
            "passes" => ProductKernel::PASSES,
            _ => return None,
        })
    }
}

/// The kernel a matrix-vector product `A x` runs on: what [`Gpu::mul_vec_with`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatVecKernel {
    /// On the compute path where [`Gpu::product_kernel`] takes it (one dispatch), else blocked
    /// (two passes).
    #[default]
    Auto,
    /// Blocked (Fujimoto's paper): partial sums over blocks of [`MATVEC_BLOCK`] columns in many
    /// fragments, then a reduction pass.
    Blocked,
    /// One fragment per four output rows (the teaching product), for comparison.
    Naive,
    /// On the compute path (WebGPU only): one dispatch, 32 rows per workgroup, partial sums
    /// added in workgroup memory.
    Compute,
}

impl MatVecKernel {
    /// The names of the kernels, as [`MatVecKernel::name`] gives them.
    pub const NAMES: [&'static str; 4] = ["auto", "blocked", "naive", "compute"];

    /// The name used in the API: "auto", "blocked", "naive" or "compute".
    pub fn name(self) -> &'static str {
        match self {
            MatVecKernel::Auto => "auto",
            MatVecKernel::Blocked => "blocked",
            MatVecKernel::Naive => "naive",
            MatVecKernel::Compute => "compute",
        }
    }

    /// The kernel of that name (one of [`MatVecKernel::NAMES`]).
    pub fn named(name: &str) -> Option<MatVecKernel> {
        Some(match name {
            "auto" => MatVecKernel::Auto,
            "blocked" => MatVecKernel::Blocked,
            "naive" => MatVecKernel::Naive,
            "compute" => MatVecKernel::Compute,
            _ => return None,
        })
    }
}

/// Which operands a product transposes: `op(a) * op(b)` ([`Gpu::mul_transposed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Transpose {
    /// `a^T` instead of `a`.
    pub a: bool,
    /// `b^T` instead of `b`.
    pub b: bool,
}

impl Transpose {
    /// `a * b`.
    pub const NONE: Transpose = Transpose { a: false, b: false };
    /// `a^T * b`.
    pub const A: Transpose = Transpose { a: true, b: false };
    /// `a * b^T`.
    pub const B: Transpose = Transpose { a: false, b: true };
    /// `a^T * b^T`.
    pub const BOTH: Transpose = Transpose { a: true, b: true };

    /// The shape `(m, k, n)` of `op(a) op(b)` for `a` and `b` of these `(rows, cols)`, or the
    /// error every product gives where the inner dimensions differ.
    pub fn dims(self, a: (usize, usize), b: (usize, usize)) -> Result<(usize, usize, usize)> {
        let swap = |(r, c): (usize, usize), t: bool| if t { (c, r) } else { (r, c) };
        let ((m, ka), (kb, n)) = (swap(a, self.a), swap(b, self.b));
        if ka == kb {
            return Ok((m, ka, n));
        }
        Err(match self {
            Transpose::NONE => Error::Shape(format!(
                "cannot multiply a {}x{} matrix by a {}x{} matrix: the inner dimensions {ka} and \
                 {kb} differ",
                a.0, a.1, b.0, b.1
            )),
            _ => {
                let op =
                    ["A B", "A B^T", "A^T B", "A^T B^T"][2 * self.a as usize + self.b as usize];
                mismatch(a, b, op, ka, kb)
            }
        })
    }
}

impl Gpu {
    /// The kernel [`ProductKernel::Auto`] runs here (in `mul`, `square` and `mul_vec`), and
    /// why, in a sentence for the page. Decided from capabilities; the reasons are
    /// measurements (docs/performance.md).
    pub fn product_kernel(&self) -> (ProductKernel, &'static str) {
        let caps = self.capabilities();
        if caps.compute && !caps.software {
            (
                ProductKernel::COMPUTE,
                "compute shaders run on this hardware adapter, and the tiled compute kernel \
                 (workgroup memory, 8x8 outputs per thread) is texla's fastest product on a GPU",
            )
        } else if caps.compute {
            (
                ProductKernel::REGISTERS,
                "this is a software adapter, a CPU that pays for every texel fetch and every \
                 workgroup barrier: the compute kernel that keeps its outputs in registers, \
                 with no workgroup memory, beat the fast fragment kernel 1.9x and the tiled \
                 compute kernel 6x on SwiftShader at n = 1024 (16 x 16 outputs per invocation; \
                 16 x 32, the default now, is 11-14% faster again)",
            )
        } else if caps.max_render_targets >= 2 {
            (
                ProductKernel::FAST,
                "without compute shaders the fast fragment kernel, one output texel per render \
                 target, is texla's fastest product",
            )
        } else {
            (
                ProductKernel::Teaching,
                "this device renders into one target per pass, so the teaching kernel is the \
                 fastest product it has",
            )
        }
    }

    /// `a * b`, a new `a.rows() x b.cols()` matrix, by the fastest kernel here
    /// ([`Gpu::product_kernel`]).
    pub fn mul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.mul_with(ProductKernel::Auto, a, b)
    }

    /// `a * b` by `kernel`. The compute and registers kernels are WebGPU's: on WebGL2 a clear
    /// `Unsupported` error; settings out of range are clear errors too.
    pub fn mul_with(&self, kernel: ProductKernel, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        match kernel {
            ProductKernel::Auto if self.takes_tensor_cores(a, b) => self.mul_tensor(a, b),
            ProductKernel::Auto => match self.product_kernel().0 {
                ProductKernel::Compute { slices, width, .. } => {
                    let storage = self.capabilities().max_workgroup_storage;
                    self.mul_compute(a, b, auto_chunk(storage), (slices, width))
                }
                other => self.mul_with(other, a, b),
            },
            ProductKernel::Teaching => self.mul_teaching(a, b),
            ProductKernel::Fast { targets } => self.mul_fast(a, b, targets),
            ProductKernel::Compute {
                chunk,
                slices,
                width,
            } => self.mul_compute(a, b, chunk, (slices, width)),
            ProductKernel::Registers { rows, cols } => self.mul_registers(a, b, rows, cols),
            ProductKernel::Tensor => self.mul_tensor(a, b),
            ProductKernel::Cpu => Err(Error::Unsupported(
                "the cpu kernel multiplies values held on the CPU, not textures".into(),
            )),
            ProductKernel::Passes { per_pass } => self.mul_passes(a, b, per_pass),
        }
    }

    /// `op(a) * op(b)` by `kernel`, op transposing where `transpose` says. `a^T b` and `a b^T`
    /// by the teaching kernel run in one pass without building the transpose; by any other
    /// kernel the transpose is built (one memory-bound pass) and multiplied: the thesis's NMF
    /// iteration went from 1.84 to 0.68 ms natively on an H100, and from 248 to 148 ms on
    /// WebGL2 in headless Chromium here, against the one-pass kernels. `a^T b^T` is `(b a)^T`.
    pub fn mul_transposed(
        &self,
        kernel: ProductKernel,
        a: &Matrix,
        b: &Matrix,
        transpose: Transpose,
    ) -> Result<Matrix> {
        let kernel = match kernel {
            ProductKernel::Auto => self.product_kernel().0,
            other => other,
        };
        match (transpose.a, transpose.b) {
            (false, false) => self.mul_with(kernel, a, b),
            (true, false) => self.tr_mul(kernel, a, b),
            (false, true) => self.mul_tr(kernel, a, b),
            (true, true) => {
                if a.rows() != b.cols() {
                    return Err(inner_mismatch(a, b, "A^T B^T", a.rows(), b.cols()));
                }
                self.transpose(&self.mul_with(kernel, b, a)?)
            }
        }
    }

    /// `m * m` for a square `m`, by the fastest kernel here.
    pub fn square(&self, m: &Matrix) -> Result<Matrix> {
        self.square_with(ProductKernel::Auto, m)
    }

    /// `m * m` for a square `m`, by `kernel`.
    pub fn square_with(&self, kernel: ProductKernel, m: &Matrix) -> Result<Matrix> {
        if m.rows() != m.cols() {
            return Err(Error::Shape(format!(
                "cannot square a {}x{} matrix: it is not square",
                m.rows(),
                m.cols()
            )));
        }
        self.mul_with(kernel, m, m)
    }

    /// `a * x` for a column vector `x`, by the fastest kernel here: on the compute path where
    /// [`Gpu::product_kernel`] takes it (one dispatch), else blocked (two passes).
    pub fn mul_vec(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        self.mul_vec_with(MatVecKernel::Auto, a, x)
    }

    /// `a * x` for a column vector `x`, by `kernel` (the compute kernel is WebGPU's: on WebGL2
    /// a clear `Unsupported` error).
    pub fn mul_vec_with(&self, kernel: MatVecKernel, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        match kernel {
            MatVecKernel::Auto => match self.product_kernel().0 {
                ProductKernel::Compute { .. } => self.mul_vec_compute(a, x),
                _ => self.mul_vec_blocked(a, x),
            },
            MatVecKernel::Blocked => self.mul_vec_blocked(a, x),
            MatVecKernel::Naive => self.mul_vec_naive(a, x),
            MatVecKernel::Compute => self.mul_vec_compute(a, x),
        }
    }

    /// `a^T`.
    pub fn transpose(&self, a: &Matrix) -> Result<Matrix> {
        if let Some(t) = self.tile_transpose(a)? {
            return Ok(t);
        }
        self.run_kernel(kernels::TRANSPOSE, &[a], self.layout(a.cols(), a.rows())?)
    }

    /// `A x` for the 2D Poisson matrix of an m x n grid (`problems::poisson_2d`) without
    /// building A: the 5-point Laplacian of `x`, the grid's values as an m x n matrix, in one
    /// pass (a grid of tiles: one pass a tile, each reading the edges of the tiles beside it).
    /// Row-major, the grid's values are the vector A multiplies.
    pub fn laplacian(&self, x: &Matrix) -> Result<Matrix> {
        if !Gpu::is_tiled(x) {
            return self.run_kernel(kernels::LAPLACIAN, &[x], x.layout);
        }
        let grid = self.blocks(x)?;
        let (rows, cols) = grid.blocks;
        self.tiled(x.rows(), x.cols(), |i, j, _, _| {
            let here = grid.at(i, j);
            let beside = [
                (j > 0).then(|| grid.at(i, j - 1)),
                (j + 1 < cols).then(|| grid.at(i, j + 1)),
                (i > 0).then(|| grid.at(i - 1, j)),
                (i + 1 < rows).then(|| grid.at(i + 1, j)),
            ];
            let exists = beside.map(|t| if t.is_some() { 1.0 } else { 0.0 });
            let mut inputs = vec![here];
            inputs.extend(beside.map(|t| t.unwrap_or(here)));
            let program = Program::new(
                kernels::LAPLACIAN_TILE,
                inputs.iter().map(|m| m.layout).collect(),
                here.layout,
            )
            .with_params(&exists);
            self.run(program, &inputs)
        })
    }
}

/// The kernels, one function each (the tensor-core product's in `tensor_cores.rs`); only
/// [`Gpu::mul_with`], [`Gpu::mul_transposed`] and [`Gpu::mul_vec_with`] call them.
impl Gpu {
    /// `a * b` by the teaching kernel ([`ProductKernel::Teaching`]).
    fn mul_teaching(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        check_inner(a, b)?;
        if let Some(c) = self.tile_product(a, b, (false, false), |a, b| self.mul_teaching(a, b))? {
            return Ok(c);
        }
        self.run_kernel(kernels::MATMUL, &[a, b], self.layout(a.rows(), b.cols())?)
    }

    /// `a * b` on the compute path without workgroup memory ([`ProductKernel::Registers`]).
    fn mul_registers(&self, a: &Matrix, b: &Matrix, rows: usize, cols: usize) -> Result<Matrix> {
        check_inner(a, b)?;
        if !(1..=8).contains(&rows) || !(1..=32).contains(&cols) {
            return Err(Error::Unsupported(format!(
                "the registers kernel keeps 1 to 8 texel rows and 1 to 32 columns of C per \
                 invocation, not {rows} x {cols}"
            )));
        }
        let block = |a: &Matrix, b: &Matrix| self.mul_registers(a, b, rows, cols);
        if let Some(c) = self.tile_product(a, b, (false, false), block)? {
            return Ok(c);
        }
        let out = self.layout(a.rows(), b.cols())?;
        self.run_kernel(kernels::matmul_registers(rows, cols), &[a, b], out)
    }

    /// `a * b` on the compute path with chunks of `bk` of the inner dimension, split into
    /// `slices` summed by a second pass, by workgroups of `width` columns; for `None`, the split
    /// and the width that fill the GPU best ([`split_k`]; [`ProductKernel::Compute`]).
    fn mul_compute(
        &self,
        a: &Matrix,
        b: &Matrix,
        bk: usize,
        (slices, width): (Option<usize>, Option<usize>),
    ) -> Result<Matrix> {
        check_inner(a, b)?;
        if !kernels::TILED_CHUNKS.contains(&bk) {
            return Err(Error::Unsupported(format!(
                "the compute-path product takes chunks of 8, 16 or 32 of k, not {bk}"
            )));
        }
        if let Some(s) = slices.filter(|s| !(1..=4).contains(s)) {
            return Err(Error::Unsupported(format!(
                "the compute-path product splits k into 1 to 4 slices, not {s}"
            )));
        }
        if let Some(w) = width.filter(|w| !kernels::tiled_widths(bk).contains(w)) {
            return Err(Error::Unsupported(format!(
                "the compute-path product takes blocks of 128 columns, or of 64 with chunks of 16 \
                 or 32, not blocks of {w} with chunks of {bk}"
            )));
        }
        let bytes = kernels::tiled_workgroup_bytes(bk, 128);
        if self.capabilities().compute && bytes > self.capabilities().max_workgroup_storage {
            return Err(Error::Unsupported(format!(
                "chunks of {bk} need {bytes} bytes of workgroup memory, this device allows {}",
                self.capabilities().max_workgroup_storage
            )));
        }
        let block = |a: &Matrix, b: &Matrix| self.mul_compute(a, b, bk, (slices, width));
        if let Some(c) = self.tile_product(a, b, (false, false), block)? {
            return Ok(c);
        }
        let out = self.layout(a.rows(), b.cols())?;
        // The stacked slices must fit one texture too (which a small tile limit makes tight).
        let fit = (4 * self.tile_limit()) / (out.rows.div_ceil(128) * 128);
        let given;
        let widths = match width {
            Some(w) => {
                given = [w];
                &given[..]
            }
            None => kernels::tiled_widths(bk),
        };
        let (slices, width) = match slices {
            Some(s) => (s, widths[0]),
            None => split_k(out, a.cols(), widths),
        };
        let slices = slices.min(fit.max(1));
        let kernel = kernels::matmul_tiled(bk, width);
        if slices == 1 {
            return self.run_kernel(kernel, &[a, b], out);
        }
        // The slices stacked, each a whole number of workgroup blocks (128 rows) high.
        let stacked = self.layout(slices * out.rows.div_ceil(128) * 128, out.cols)?;
        let partial = self.run_kernel(kernel, &[a, b], stacked)?;
        self.run_kernel(kernels::SUM_SLICES, &[&partial], out)
    }

    /// `a * b` with the fast fragment kernel writing `targets` render targets
    /// ([`ProductKernel::Fast`]).
    fn mul_fast(&self, a: &Matrix, b: &Matrix, targets: usize) -> Result<Matrix> {
        check_inner(a, b)?;
        let block = |a: &Matrix, b: &Matrix| self.mul_fast(a, b, targets);
        if let Some(c) = self.tile_product(a, b, (false, false), block)? {
            return Ok(c);
        }
        let n = b.cols();
        let out = self.layout(a.rows(), n)?;
        let targets = targets
            .min(self.capabilities().max_render_targets)
            .min(kernels::FAST_TARGETS)
            .clamp(1, n);
        // Slabs of w columns, as few as cover n.
        let w = n.div_ceil(targets);
        let targets = n.div_ceil(w);
        if targets == 1 {
            // One target is the teaching kernel.
            return self.mul_teaching(a, b);
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
            self.backend().copy_texels(
                self.texture(slab)?,
                (0, 0),
                self.texture(&c)?,
                (x, 0),
                (w.min(n - x), out.height()),
            )?;
        }
        Ok(c)
    }

    /// `a * b` by accumulation passes ([`ProductKernel::Passes`]).
    fn mul_passes(&self, a: &Matrix, b: &Matrix, per_pass: usize) -> Result<Matrix> {
        if a.cols() != b.rows() {
            return Err(inner_mismatch(a, b, "A B", a.cols(), b.rows()));
        }
        if per_pass == 0 {
            return Err(Error::Argument(
                "perPass must be at least 1 inner index per pass".into(),
            ));
        }
        let block = |a: &Matrix, b: &Matrix| self.mul_passes(a, b, per_pass);
        if let Some(c) = self.tile_product(a, b, (false, false), block)? {
            return Ok(c);
        }
        let output = self.layout(a.rows(), b.cols())?;
        let mut c = self.fill(a.rows(), b.cols(), 0.0)?;
        for p0 in (0..a.cols()).step_by(per_pass) {
            let program = Program::new(
                kernels::MATMUL_PASS,
                vec![a.layout, b.layout, c.layout],
                output,
            )
            .with_params(&[p0 as f32, per_pass.min(a.cols()) as f32]);
            c = self.run(program, &[a, b, &c])?;
        }
        Ok(c)
    }

    /// `a^T * b` by `kernel` (not `Auto`): in one pass for the teaching kernel, else `a^T`
    /// times `b`.
    fn tr_mul(&self, kernel: ProductKernel, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        if a.rows() != b.rows() {
            return Err(inner_mismatch(a, b, "A^T B", a.rows(), b.rows()));
        }
        let block = |a: &Matrix, b: &Matrix| self.tr_mul(kernel, a, b);
        if let Some(c) = self.tile_product(a, b, (true, false), block)? {
            return Ok(c);
        }
        match kernel {
            ProductKernel::Teaching => {
                self.run_kernel(kernels::TR_MUL, &[a, b], self.layout(a.cols(), b.cols())?)
            }
            _ => self.mul_with(kernel, &self.transpose(a)?, b),
        }
    }

    /// `a * b^T` by `kernel` (not `Auto`), as [`Gpu::tr_mul`].
    fn mul_tr(&self, kernel: ProductKernel, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        if a.cols() != b.cols() {
            return Err(inner_mismatch(a, b, "A B^T", a.cols(), b.cols()));
        }
        let block = |a: &Matrix, b: &Matrix| self.mul_tr(kernel, a, b);
        if let Some(c) = self.tile_product(a, b, (false, true), block)? {
            return Ok(c);
        }
        match kernel {
            ProductKernel::Teaching => {
                self.run_kernel(kernels::MUL_TR, &[a, b], self.layout(a.rows(), b.rows())?)
            }
            _ => self.mul_with(kernel, a, &self.transpose(b)?),
        }
    }

    /// `a * x` blocked ([`MatVecKernel::Blocked`]).
    fn mul_vec_blocked(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        check_vector(a, x)?;
        let block = |a: &Matrix, x: &Matrix| self.mul_vec_blocked(a, x);
        if let Some(y) = self.tile_product(a, x, (false, false), block)? {
            return Ok(y);
        }
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

    /// `a * x` by the teaching product ([`MatVecKernel::Naive`]).
    fn mul_vec_naive(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        if x.cols() != 1 {
            return Err(Error::Shape(format!(
                "A x needs x to be a column vector, got {}x{}",
                x.rows(),
                x.cols()
            )));
        }
        self.mul_teaching(a, x)
    }

    /// `a * x` on the compute path ([`MatVecKernel::Compute`]).
    fn mul_vec_compute(&self, a: &Matrix, x: &Matrix) -> Result<Matrix> {
        check_vector(a, x)?;
        self.capabilities()
            .needs_compute("the compute-path matrix-vector product")?;
        let block = |a: &Matrix, x: &Matrix| self.mul_vec_compute(a, x);
        if let Some(y) = self.tile_product(a, x, (false, false), block)? {
            return Ok(y);
        }
        let kernel = kernels::matvec_tiled(a.rows().div_ceil(4));
        self.run_kernel(kernel, &[a, x], self.layout(a.rows(), 1)?)
    }
}

/// `A x` needs x to be a column vector of A's width.
pub(super) fn check_vector(a: &Matrix, x: &Matrix) -> Result<()> {
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

/// `a * b` needs a.cols() == b.rows().
pub(super) fn check_inner(a: &Matrix, b: &Matrix) -> Result<()> {
    let shape = |m: &Matrix| (m.rows(), m.cols());
    Transpose::NONE.dims(shape(a), shape(b)).map(|_| ())
}

fn inner_mismatch(a: &Matrix, b: &Matrix, op: &str, ka: usize, kb: usize) -> Error {
    mismatch((a.rows(), a.cols()), (b.rows(), b.cols()), op, ka, kb)
}

/// [`inner_mismatch`] for `a` and `b` of these `(rows, cols)`.
fn mismatch(a: (usize, usize), b: (usize, usize), op: &str, ka: usize, kb: usize) -> Error {
    Error::Shape(format!(
        "cannot compute {op} of a {}x{} matrix A and a {}x{} matrix B: the inner dimensions {ka} and {kb} differ",
        a.0, a.1, b.0, b.1
    ))
}
