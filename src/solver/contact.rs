//! Projected Jacobi for the wall's contact LCP, with Coulomb friction: one pass per iteration,
//! no read-back inside the loop (see [`crate::physics::ContactLcp`] for the layout).

use crate::backend::BackendKind;
use crate::device::Device;
use crate::error::Result;
use crate::matrix::Matrix;
use crate::physics::{ContactLcp, GpuLayout, World};

/// One frame's contact LCP on the GPU.
pub struct ContactSystem {
    /// A, dense (4C x 4C) or as block rows (4C x 4K).
    pub matrix: Matrix,
    /// Block rows: the neighbour lists (4C x K/4); dense: a 1 x 1 placeholder.
    pub neighbours: Matrix,
    /// Blocks per contact the kernel loops over: C (dense) or K.
    pub count: usize,
    /// True for the dense layout.
    pub dense: bool,
    /// b, 4C x 1.
    pub b: Matrix,
    /// 1 / diag(A), 4C x 1.
    pub inv_diag: Matrix,
    /// mu on each contact's first row, 4C x 1.
    pub mu: Matrix,
}

impl ContactSystem {
    /// Uploads the textures of `layout`.
    pub fn upload(gpu: &dyn Device, layout: &GpuLayout) -> Result<Self> {
        let rows = layout.rows;
        let neighbours = match &layout.neighbours {
            Some(list) => gpu.upload(list, rows, layout.count / 4)?,
            None => gpu.fill(1, 1, -1.0)?,
        };
        Ok(ContactSystem {
            matrix: gpu.upload(&layout.matrix, rows, layout.width)?,
            neighbours,
            count: layout.count,
            dense: layout.neighbours.is_none(),
            b: gpu.upload(&layout.b, rows, 1)?,
            inv_diag: gpu.upload(&layout.inv_diag, rows, 1)?,
            mu: gpu.upload(&layout.mu, rows, 1)?,
        })
    }
}

/// Runs `iterations` projected Jacobi passes from `x0` (4C x 1): per contact
/// x <- proj(x + omega D (A x + b)), normal impulse >= 0, friction within mu times it.
pub fn contact_jacobi(
    gpu: &dyn Device,
    system: &ContactSystem,
    x0: &Matrix,
    omega: f32,
    iterations: usize,
) -> Result<Matrix> {
    super::check_omega(omega)?;
    let mut x = x0.clone();
    for _ in 0..iterations {
        x = gpu.contact_step(system, &x, omega)?;
    }
    Ok(x)
}

/// Whether [`gpu_frame`] solves `system` in one compute dispatch: the dense layout on WebGPU
/// with a hardware adapter. A software renderer runs the dispatch's workgroups one after
/// another on one core (SwiftShader: slower than the passes), and the block layout has no
/// single-dispatch solver yet.
fn single_dispatch(gpu: &dyn Device, system: &ContactSystem) -> bool {
    let caps = gpu.capabilities();
    system.dense && caps.backend == BackendKind::WebGpu && !caps.software
}

/// One frame of `world` with its contact LCP solved on the GPU: the LCP's textures are
/// uploaded, `iterations` passes run (dense mode on WebGPU with a hardware adapter: all of
/// them in ONE compute dispatch, see [`single_dispatch`]), the impulses come back in one read. Returns the frame's
/// LCP, the impulses applied and the milliseconds the GPU part took (upload, passes and
/// read-back), timed by `now` (ms).
pub async fn gpu_frame(
    gpu: &dyn Device,
    world: &mut World,
    now: &dyn Fn() -> f64,
) -> Result<(ContactLcp, Vec<[f64; 3]>, f64)> {
    let lcp = world.begin_frame();
    let iterations = world.iterations(&lcp);
    let start = now();
    let impulses = if lcp.contacts.is_empty() {
        Vec::new()
    } else {
        let layout = lcp.gpu_layout(world.settings.mode);
        let system = ContactSystem::upload(gpu, &layout)?;
        let x0 = gpu.upload(&layout.x0, layout.rows, 1)?;
        let omega = world.settings.omega as f32;
        let x = if single_dispatch(gpu, &system) {
            gpu.contact_jacobi_compute(&system, &x0, (omega, iterations), None)?
        } else {
            contact_jacobi(gpu, &system, &x0, omega, iterations)?
        };
        let data = gpu.read(&x).await?;
        data.chunks_exact(4)
            .map(|c| [c[0].into(), c[1].into(), c[2].into()])
            .collect()
    };
    let solve_ms = now() - start;
    world.end_frame(&lcp, &impulses, iterations)?;
    Ok((lcp, impulses, solve_ms))
}
