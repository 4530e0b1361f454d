//! The single-dispatch LCP solver's planner: every projected Jacobi iteration in ONE compute
//! dispatch (`shaders/lcp_jacobi.wgsl`), with the blocks, workgroups, registers and workgroup
//! memory chosen from the device's capabilities.

use super::{check_omega, check_vectors};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernels::{self, Program};
use crate::matrix::Matrix;

/// Workgroups [`lcp_jacobi_blocks`] uses at most by default on a hardware GPU: few enough to
/// run side by side on any of them.
pub const LCP_DEFAULT_WORKGROUPS: usize = 128;

/// Most iterations one kernel run takes: the count travels as a float parameter.
pub const MAX_KERNEL_ITERATIONS: usize = 1 << 24;

/// `iterations` steps of projected Jacobi for the LCP (`x <- max(x + omega D (Ax + b), 0)`,
/// `D = diag(A)^-1`, omega negative) from `x0`, ALL in one compute dispatch (WebGPU only): no
/// pass, submission or read-back per iteration. `workgroups` share the rows and pass x to each
/// other through storage memory each iteration; if the GPU does not run them side by side the
/// wait gives up and the result is NaN. Without compute kernels a clear `Unsupported` error. The
/// caller checks the diagonal (a zero gives inf).
///
/// `block_rows` texel rows (1, 2 or 4) per block of rows. By default: on a software adapter one
/// workgroup of blocks of 4; else one workgroup per block of 4 texel rows (16 rows; at most
/// [`LCP_DEFAULT_WORKGROUPS`]), with A's texels in registers where they fit (n <= 1024).
/// Measured on an H100 at n = 400, blocks of 4 beat blocks of 2 and 1 (more workgroups).
/// `friction` (1 / diag(A) and mu, n x 1 each) solves the wall's contact LCP instead: one
/// contact per texel row, friction bounded by mu times the new normal impulse.
pub fn lcp_jacobi_blocks(
    gpu: &Gpu,
    (a, b, x0): (&Matrix, &Matrix, &Matrix),
    friction: Option<(&Matrix, &Matrix)>,
    (omega, iterations): (f32, usize),
    (workgroups, block_rows): (Option<usize>, Option<usize>),
) -> Result<Matrix> {
    let mut vectors = vec![("b", b), ("x0", x0)];
    if let Some((d, mu)) = friction {
        vectors.extend([("1 / diag(A)", d), ("mu", mu)]);
    }
    let n = check_vectors(a, &vectors)?;
    check_omega(omega)?;
    if !(1..=MAX_KERNEL_ITERATIONS).contains(&iterations) {
        return Err(Error::Solver(format!(
            "iterations must be from 1 to {MAX_KERNEL_ITERATIONS}, got {iterations}"
        )));
    }
    if workgroups == Some(0) {
        return Err(Error::Solver("workgroups must be at least 1".into()));
    }
    if block_rows.is_some_and(|r| ![1, 2, 4].contains(&r)) {
        return Err(Error::Solver("blocks take 1, 2 or 4 texel rows".into()));
    }
    gpu.capabilities()
        .needs_compute("the single-dispatch LCP solver")?;
    let height = a.layout().height();
    let software = gpu.capabilities().software;
    // Blocks: as given; else 4 texel rows where one workgroup does all (the software
    // default, or a small number asked for), else the smallest that give few enough.
    let wanted = workgroups.unwrap_or(if software {
        1
    } else {
        height.div_ceil(4).min(LCP_DEFAULT_WORKGROUPS)
    });
    let block_rows = block_rows.unwrap_or_else(|| {
        [4, 2, 1]
            .into_iter()
            .find(|&r| height.div_ceil(r) <= wanted)
            .unwrap_or(4)
    });
    let blocks = height.div_ceil(block_rows);
    let workgroups = wanted.min(blocks);
    // A in registers where every workgroup has one block and its row fits.
    let lanes = 256 / block_rows;
    let registers = if workgroups >= blocks && n.div_ceil(lanes) <= kernels::LCP_MAX_REGISTERS {
        n.div_ceil(lanes)
    } else {
        0
    };
    // x in workgroup memory, rounded up to 256 words so that few pipelines are built.
    let x_words = (4 * height).max(lanes * registers).div_ceil(256) * 256;
    let needed = 4 * x_words + kernels::LCP_PARTIAL_BYTES;
    let available = gpu.capabilities().max_workgroup_storage;
    if needed > available {
        return Err(Error::Unsupported(format!(
            "the single-dispatch LCP solver keeps x in workgroup memory: n = {n} needs {needed} bytes, this device allows {available}"
        )));
    }
    if friction.is_some() && !n.is_multiple_of(4) {
        return Err(Error::Shape(format!(
            "a contact LCP has 4 rows per contact, got n = {n}"
        )));
    }
    // Without friction, d and e are bound (to b) but unused.
    let (d, mu) = friction.unwrap_or((b, b));
    let program = Program::new(
        kernels::lcp_jacobi(
            x_words,
            block_rows,
            registers,
            height,
            workgroups,
            friction.is_some(),
        ),
        vec![a.layout(), b.layout(), x0.layout(), d.layout(), mu.layout()],
        x0.layout(),
    )
    .with_params(&[omega, iterations as f32]);
    gpu.run(program, &[a, b, x0, d, mu])
}
