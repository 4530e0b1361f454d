//! The EBJ Poisson solver on the GPU (spec §1.5): the x-line of every cell column in the
//! solver's order, cut into slabs of four; slab `s` is one texture (`ny` texel rows, `nz`
//! columns: texel `(k, j)` holds the four cells of slab `s` of line `(j, k)`), the paper's
//! TEX_X_i. One iteration is one pass per slab ([`crate::kernels::line_stencil`]), each reading
//! the newest textures of the slabs before it: the paper's "rectangle drawn 10 times".
//!
//! ```text
//!  line (j, k) in the solver's order:  | x_p0 x_p1 x_p2 x_p3 | x_p4 .. x_p7 | ... |
//!                                        slab 0: texture 0     slab 1: texture 1
//!  pass s:  slab_s(k, j) = y_s(slabs read by block row s of P S P^T)   (in-line, baked)
//!                        + (1/d) slab_s(k, j +- 1) + (1/d) slab_s(k +- 1, j)   (clamped)
//!                        + (b / d) slab_s(k, j)
//! ```

use super::poisson::Ebj;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernels::{self, Kernel, Last, LineStencil, LinearPlan, Program};
use crate::matrix::Matrix;

/// One pass: the kernel of a slab and the slabs its inputs are (the last input, `b / d` of the
/// slab, follows them).
#[derive(Debug, Clone)]
pub struct Pass {
    /// The kernel.
    pub kernel: Kernel,
    /// The slabs read, in the kernel's input order.
    pub slabs: Vec<usize>,
}

/// The solver's state on the GPU: the slabs of x and of `b / d`.
#[derive(Debug, Clone)]
pub struct EbjState {
    /// x, one texture per slab.
    pub x: Vec<Matrix>,
    /// `b / d`, one texture per slab.
    pub b: Vec<Matrix>,
}

impl Ebj {
    /// The passes of one iteration, one per slab (see the module docs). Fails with
    /// [`Error::Argument`] for an order whose block rows read more slabs than a pass may.
    pub fn passes(&self) -> Result<Vec<Pass>> {
        let program = self.line_block().instructions();
        let plan = LinearPlan::new(&program, &(0..self.grid.dims().0).collect::<Vec<_>>())?;
        let t = 1.0 / self.grid.diagonal();
        let mut neighbours = vec![((0, -1), t), ((0, 1), t)];
        if self.grid.dims().2 > 1 {
            neighbours.extend([((-1, 0), t), ((1, 0), t)]);
        }
        (0..self.slabs())
            .map(|s| {
                let stencil = LineStencil {
                    quadruple: s,
                    rows: plan.rows[s].clone(),
                    reads: plan.reads[s].clone(),
                    neighbours: neighbours.clone(),
                    corners: Vec::new(),
                    last: Last::Add,
                };
                Ok(Pass {
                    kernel: kernels::line_stencil(&program, &stencil)?,
                    slabs: stencil.inputs(),
                })
            })
            .collect()
    }

    /// `v` (natural cell order) as slab textures' data: per slab, `4 ny x nz` values row-major
    /// (row `4 j + l`, column `k` = the cell at lane `l` of slab `s` of line `(j, k)`), scaled.
    pub fn pack(&self, v: &[f64], scale: f64) -> Vec<Vec<f32>> {
        let (_, ny, nz) = self.grid.dims();
        (0..self.slabs())
            .map(|s| {
                let mut out = vec![0.0f32; 4 * ny * nz];
                for j in 0..ny {
                    for l in 0..4 {
                        let i = self.perm[4 * s + l];
                        for k in 0..nz {
                            out[(4 * j + l) * nz + k] =
                                (scale * v[self.grid.index(i, j, k)]) as f32;
                        }
                    }
                }
                out
            })
            .collect()
    }

    /// The inverse of [`Ebj::pack`] (scale 1): slab data to natural cell order.
    pub fn unpack(&self, slabs: &[Vec<f32>]) -> Vec<f64> {
        let (_, ny, nz) = self.grid.dims();
        let mut v = vec![0.0; self.grid.len()];
        for (s, data) in slabs.iter().enumerate() {
            for j in 0..ny {
                for l in 0..4 {
                    let i = self.perm[4 * s + l];
                    for k in 0..nz {
                        v[self.grid.index(i, j, k)] = f64::from(data[(4 * j + l) * nz + k]);
                    }
                }
            }
        }
        v
    }

    /// Uploads `b` and the first guess `x0` (zero if `None`), both in natural cell order.
    /// Fails with [`Error::Argument`] when a length is not the grid's or an entry is not
    /// finite, and also when the device's textures cannot hold `ny` texel
    /// rows or `nz` columns.
    pub fn upload(&self, gpu: &Gpu, b: &[f64], x0: Option<&[f64]>) -> Result<EbjState> {
        let (_, ny, nz) = self.grid.dims();
        let n = self.grid.len();
        for (name, v) in [("b", Some(b)), ("x0", x0)] {
            let Some(v) = v else { continue };
            if v.len() != n {
                return Err(Error::Argument(format!(
                    "{name} must hold one value per cell, {n}, got {}",
                    v.len()
                )));
            }
            if let Some(p) = v.iter().position(|x| !(*x as f32).is_finite()) {
                return Err(Error::Argument(format!(
                    "{name}[{p}] is {}: every entry must be a finite float32 number",
                    v[p]
                )));
            }
        }
        if !gpu.fits(4 * ny, nz) {
            return Err(Error::Argument(format!(
                "the grid is too large for this device: its slabs need textures of {nz} x {ny} \
                 texels (z by y), this device allows at most {max} x {max}",
                max = gpu.tile_limit()
            )));
        }
        let zeros = vec![0.0; n];
        let x = self.pack(x0.unwrap_or(&zeros), 1.0);
        let bb = self.pack(b, 1.0 / self.grid.diagonal());
        let up = |data: &Vec<f32>| gpu.upload(data, 4 * ny, nz);
        Ok(EbjState {
            x: x.iter().map(up).collect::<Result<_>>()?,
            b: bb.iter().map(up).collect::<Result<_>>()?,
        })
    }

    /// One EBJ iteration on the GPU: the passes of [`Ebj::passes`], slab after slab, each
    /// replacing its slab in `state` at once.
    pub fn sweep_gpu(&self, gpu: &Gpu, passes: &[Pass], state: &mut EbjState) -> Result<()> {
        for (s, pass) in passes.iter().enumerate() {
            let mut inputs: Vec<&Matrix> = pass.slabs.iter().map(|&q| &state.x[q]).collect();
            inputs.push(&state.b[s]);
            let layouts = inputs.iter().map(|m| m.layout()).collect();
            let out = gpu.run(
                Program::new(pass.kernel.clone(), layouts, state.x[s].layout()),
                &inputs,
            )?;
            state.x[s] = out;
        }
        Ok(())
    }

    /// Reads x back, in natural cell order.
    pub async fn read(&self, gpu: &Gpu, state: &EbjState) -> Result<Vec<f64>> {
        let mut slabs = Vec::with_capacity(state.x.len());
        for m in &state.x {
            slabs.push(gpu.read(m).await?);
        }
        Ok(self.unpack(&slabs))
    }
}
