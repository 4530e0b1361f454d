//! The wall's contact LCP, with Coulomb friction: projected Jacobi or accelerated projected
//! Jacobi (Nesterov's momentum), each one pass per iteration or every iteration in one compute
//! dispatch, and no read-back inside the loop.
//!
//! The system arrives as plain vectors ([`ContactLayout`]): one contact per texel row, rows
//! `(normal, tangent 1, tangent 2, 0)`; the solver knows nothing of bodies or frames. On the GPU
//! ([`ContactSystem`]) the contacts are wrapped into segments of at most one texture's height
//! ([`ContactWrap`], `contact_wrap.rs`), so that a frame of more contacts than one texture has
//! texel rows (100 walls: 42,000) still runs in one texture per matrix.

use crate::error::{Error, Result};
use crate::event_loop::{next_chunk, now_ms};
use crate::gpu::Gpu;
use crate::kernels::{self, Program};
use crate::matrix::Matrix;

use super::{ContactFactors, ContactWrap, FactorSystem, JACOBIAN_TEXELS};

/// A contact LCP as the data of its textures (row-major data of each matrix).
#[derive(Debug, Clone, PartialEq)]
pub struct ContactLayout {
    /// Rows of every matrix: 4 per contact.
    pub rows: usize,
    /// Columns of `matrix`: 4C (dense) or 4K (blocks); 0 where only the factors are given.
    pub width: usize,
    /// The matrix, `rows x width`.
    pub matrix: Vec<f32>,
    /// Blocks mode: the neighbour lists, `rows x width/16` (-1 where a list has ended).
    pub neighbours: Option<Vec<f32>>,
    /// Blocks the kernel loops over per contact: C (dense) or K (blocks); 0 where only the
    /// factors are given (then only the single-dispatch solver runs).
    pub count: usize,
    /// Contacts of each island, in order: runs of contacts that share no unknown with any
    /// other run (sums to `rows / 4`). One run of all the contacts is always right.
    pub islands: Vec<usize>,
    /// The matrix as its factors, where the caller has them: what the single-dispatch solver
    /// reads instead of the block rows ([`ContactFactors`]).
    pub factors: Option<ContactFactors>,
    /// b, `rows x 1`.
    pub b: Vec<f32>,
    /// 1 / diag(A), `rows x 1` (0 on padding rows).
    pub inv_diag: Vec<f32>,
    /// mu on each contact's first row, `rows x 1`.
    pub mu: Vec<f32>,
    /// The warm start, `rows x 1`.
    pub x0: Vec<f32>,
}

/// One frame's contact LCP on the GPU, wrapped into segments ([`ContactWrap`]: contact c at
/// texel row c % H of segment c / H) so that a system past one texture's height still fits.
pub struct ContactSystem {
    /// Where the contacts lie.
    pub wrap: ContactWrap,
    /// A, dense (4C x 4C, one segment) or as block rows (4H x 4K S).
    pub matrix: Matrix,
    /// Block rows: the neighbour lists (4H x K/4 S); dense: a 1 x 1 placeholder.
    pub neighbours: Matrix,
    /// Blocks per contact the kernel loops over: C (dense) or K; 0 where only the factors were
    /// uploaded (`matrix` and `neighbours` are then 1 x 1 placeholders).
    pub count: usize,
    /// True for the dense layout.
    pub dense: bool,
    /// b, 4H x S.
    pub b: Matrix,
    /// 1 / diag(A), 4H x S.
    pub inv_diag: Matrix,
    /// mu on each contact's first row, 4H x S.
    pub mu: Matrix,
    /// The warm start, 4H x S: the impulses every solver here starts from.
    pub x0: Matrix,
    /// The matrix as its factors (the block layout, where the layout has them): what the
    /// factored passes read, with the groups of whole islands the single-dispatch solver's
    /// workgroups take where it can run.
    pub factors: Option<FactorSystem>,
}

impl ContactSystem {
    /// Uploads the textures of `layout`, wrapped into as few segments as textures of
    /// [`Gpu::tile_limit`] texels allow. A system whose segments side by side are wider than
    /// that (the dense layout past L / 4 contacts, or S 4K > L) is [`Error::TooLarge`].
    pub fn upload(gpu: &Gpu, layout: &ContactLayout) -> Result<Self> {
        let widest = layout.width.max(layout.count / 4).max(JACOBIAN_TEXELS);
        let wrap = ContactWrap::new(layout.rows / 4, widest, gpu.tile_limit())?;
        let put = |data: &[f32], width: usize, pad: f32| {
            if width == 0 {
                return gpu.fill(1, 1, pad);
            }
            let (rows, cols) = wrap.shape(width);
            gpu.upload(&wrap.wrap(data, width, pad), rows, cols)
        };
        let neighbours = match &layout.neighbours {
            Some(list) => put(list, layout.count / 4, -1.0)?,
            None => gpu.fill(1, 1, -1.0)?,
        };
        let factors = match (&layout.factors, &layout.neighbours) {
            (Some(factors), Some(_)) => {
                Some(FactorSystem::upload(gpu, factors, &layout.islands, wrap)?)
            }
            _ => None,
        };
        Ok(ContactSystem {
            factors,
            wrap,
            matrix: put(&layout.matrix, layout.width, 0.0)?,
            neighbours,
            count: layout.count,
            dense: layout.neighbours.is_none(),
            b: put(&layout.b, 1, 0.0)?,
            inv_diag: put(&layout.inv_diag, 1, 0.0)?,
            mu: put(&layout.mu, 1, 0.0)?,
            x0: put(&layout.x0, 1, 0.0)?,
        })
    }

    /// The impulses `x` (a solver's result, 4H x S) read back in contact order: 4C values,
    /// (normal, tangent 1, tangent 2, 0) per contact.
    pub async fn read(&self, gpu: &Gpu, x: &Matrix) -> Result<Vec<f32>> {
        check_impulses(self, x)?;
        Ok(self.wrap.unwrap(&gpu.read(x).await?))
    }
}

/// How [`solve_contacts`] iterates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ContactMethod {
    /// Projected Jacobi, relaxation `omega` (negative, seed convention).
    Jacobi {
        /// The relaxation.
        omega: f32,
    },
    /// Accelerated projected Jacobi ([`contact_nesterov`]).
    Nesterov {
        /// The step (negative, seed convention): -1 / lambda_max(D A) converges.
        step: f32,
        /// The friction coefficient.
        mu: f32,
    },
}

/// `system` with A's rows uploaded (what the passes read), not its factors alone.
fn check_rows(system: &ContactSystem) -> Result<()> {
    if system.count == 0 {
        return Err(Error::Unsupported(
            "this contact system was uploaded as its matrix's factors only: only the \
             single-dispatch solver takes it"
                .into(),
        ));
    }
    Ok(())
}

/// `x` as the impulses of `system`: shaped as its warm start (4H x S).
fn check_impulses(system: &ContactSystem, x: &Matrix) -> Result<()> {
    let (rows, cols) = (system.x0.rows(), system.x0.cols());
    if x.cols() != cols || x.rows() != rows {
        return Err(Error::Shape(format!(
            "the contact impulses must be a {rows}x{cols} matrix (4 rows per contact, {} \
             contacts in {cols} segment(s)), got {}x{}",
            system.wrap.contacts,
            x.rows(),
            x.cols()
        )));
    }
    Ok(())
}

/// The accelerated solver's step must be negative and finite, mu at least 0.
fn check_step(step: f32, mu: f32) -> Result<()> {
    if step < 0.0 && step.is_finite() && mu >= 0.0 {
        Ok(())
    } else {
        Err(Error::Argument(format!(
            "the accelerated contact solver needs a negative step and mu >= 0, got {step} and {mu}"
        )))
    }
}

/// One projected Jacobi iteration of a contact LCP with friction, in one pass: the new impulses
/// from `x`.
pub fn contact_step(gpu: &Gpu, system: &ContactSystem, x: &Matrix, omega: f32) -> Result<Matrix> {
    check_rows(system)?;
    check_impulses(system, x)?;
    let inputs = [
        &system.matrix,
        &system.neighbours,
        x,
        &system.b,
        &system.inv_diag,
        &system.mu,
    ];
    let dense = if system.dense { 1.0 } else { 0.0 };
    gpu.run(
        Program::new(
            kernels::CONTACT_JACOBI,
            inputs.iter().map(|m| m.layout()).collect(),
            x.layout(),
        )
        .with_params(&[omega, system.count as f32, dense]),
        &inputs,
    )
}

/// Runs `iterations` projected Jacobi passes from `x0` (4H x S, as `system.x0`): per contact
/// x <- proj(x + omega D (A x + b)), normal impulse >= 0, friction within mu times it.
pub fn contact_jacobi(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    omega: f32,
    iterations: usize,
) -> Result<Matrix> {
    super::check_omega(omega)?;
    let mut x = x0.clone();
    for _ in 0..iterations {
        x = contact_step(gpu, system, &x, omega)?;
    }
    Ok(x)
}

/// `iterations` accelerated projected Jacobi iterations of `system` from `x0`, one pass each
/// (`shaders/solvers/contact_nesterov.wgsl`): each contact's impulses are extrapolated along
/// their last change (Nesterov's momentum, FISTA's schedule), stepped by `step` times 1/diag(A)
/// times the residual and projected; a contact whose step turns back restarts its momentum.
/// Each pass writes two targets, the new impulses and the extrapolation the next pass steps from
/// (fourth row: its momentum counter, 0 in `x0`). The float64 twin is
/// `physics::ContactLcp::solve_nesterov`.
pub fn contact_nesterov(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    (step, mu): (f32, f32),
    iterations: usize,
) -> Result<Matrix> {
    check_rows(system)?;
    check_impulses(system, x0)?;
    check_step(step, mu)?;
    let start = (x0.clone(), x0.clone());
    let (x, _) = accelerated_passes(gpu, system, None, start, (step, mu), iterations)?;
    Ok(x)
}

/// [`contact_nesterov`] from the matrix's factors ([`ContactSystem::factors`], A = J M^-1 J^T +
/// R), two fragment passes per iteration: the bodies' velocities v = M^-1 J^T y
/// (`shaders/solvers/contact_velocities.*`, one texel pair per body), then the same step as
/// [`contact_nesterov`] with A y = J v + R y (`contact_nesterov_factored.*`, two targets: x
/// and y). About 13 texel fetches per contact and 4 per body's contact instead of A's block
/// row (about 90 on the wall); any backend, islands of any size. The float64 twin is
/// `physics::ContactLcp::solve_nesterov`.
pub fn contact_nesterov_factored(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    (step, mu): (f32, f32),
    iterations: usize,
) -> Result<Matrix> {
    check_impulses(system, x0)?;
    check_step(step, mu)?;
    let Some(f) = &system.factors else {
        return Err(Error::Unsupported(
            "the factored accelerated contact passes need the block layout with the matrix's \
             factors"
                .into(),
        ));
    };
    let start = (x0.clone(), x0.clone());
    let (x, _) = accelerated_passes(gpu, system, Some(f), start, (step, mu), iterations)?;
    Ok(x)
}

/// `iterations` accelerated iterations from the impulses `x` and the extrapolation `y` of an
/// earlier one; returns both. With `factors`, two passes each ([`contact_nesterov_factored`]),
/// else one over A's block rows ([`contact_nesterov`]).
fn accelerated_passes(
    gpu: &Gpu,
    system: &ContactSystem,
    factors: Option<&FactorSystem>,
    (mut x, mut y): (Matrix, Matrix),
    (step, mu): (f32, f32),
    iterations: usize,
) -> Result<(Matrix, Matrix)> {
    let dense = if system.dense { 1.0 } else { 0.0 };
    for _ in 0..iterations {
        let v; // the bodies' velocities, where the passes read the factors
        let (kernel, first, second, params) = match factors {
            Some(f) => {
                let inputs = [&f.jacobian, &f.bodies, &y];
                v = gpu.run(
                    Program::new(
                        kernels::CONTACT_VELOCITIES,
                        inputs.iter().map(|m| m.layout()).collect(),
                        f.velocities,
                    )
                    .with_params(&[f.body_width as f32]),
                    &inputs,
                )?;
                let params = vec![step, mu, f.regularisation];
                (kernels::CONTACT_NESTEROV_FACTORED, &f.jacobian, &v, params)
            }
            None => {
                let params = vec![step, system.count as f32, dense, mu];
                (
                    kernels::CONTACT_NESTEROV,
                    &system.matrix,
                    &system.neighbours,
                    params,
                )
            }
        };
        let inputs = [first, second, &y, &x, &system.b, &system.inv_diag];
        let mut next = gpu.run_multi(
            Program::new(
                kernel,
                inputs.iter().map(|m| m.layout()).collect(),
                x.layout(),
            )
            .with_params(&params),
            &inputs,
        )?;
        y = next.pop().expect("two targets");
        x = next.pop().expect("two targets");
    }
    Ok((x, y))
}

/// [`contact_nesterov`] with EVERY iteration in one compute dispatch
/// (`shaders/solvers/contact_nesterov_group.wgsl`): the matrix as its factors, one workgroup
/// per group of whole islands ([`ContactSystem::factors`]), WebGPU. Anything else is a clear
/// error.
pub fn contact_nesterov_compute(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    (step, mu): (f32, f32),
    iterations: usize,
) -> Result<Matrix> {
    check_impulses(system, x0)?;
    check_step(step, mu)?;
    gpu.capabilities()
        .needs_compute("the single-dispatch accelerated contact solver")?;
    let Some((f, groups)) = system
        .factors
        .as_ref()
        .and_then(|f| Some((f, f.groups.as_ref()?)))
    else {
        return Err(Error::Unsupported(format!(
            "the single-dispatch accelerated contact solver needs the block layout with the \
             matrix's factors and islands of at most {} contacts and {} bodies",
            kernels::GROUP_MAX_CONTACTS,
            kernels::GROUP_MAX_BODIES
        )));
    };
    let inputs = [
        &f.jacobian,
        &f.bodies,
        x0,
        &system.b,
        &system.inv_diag,
        &groups.texels,
    ];
    gpu.run(
        Program::new(
            kernels::contact_nesterov_group(group_threads(gpu), gpu.capabilities().software),
            inputs.iter().map(|m| m.layout()).collect(),
            x0.layout(),
        )
        .with_params(&[
            step,
            f.body_width as f32,
            iterations as f32,
            mu,
            f.regularisation,
        ])
        .with_workgroups(groups.count),
        &inputs,
    )
}

/// `iterations` projected Jacobi iterations (omega `omega`) of a dense contact LCP (friction
/// included) from `x`, ALL in one compute dispatch: the solver of
/// [`super::lcp_jacobi_blocks`] with the projection of [`contact_step`]. `workgroups` as
/// there. The block layout and a device without compute kernels give clear `Unsupported`
/// errors.
pub fn contact_jacobi_compute(
    gpu: &Gpu,
    system: &ContactSystem,
    x: &Matrix,
    (omega, iterations): (f32, usize),
    workgroups: Option<usize>,
) -> Result<Matrix> {
    if !system.dense {
        return Err(Error::Unsupported(
            "the single-dispatch contact solver takes the dense layout".into(),
        ));
    }
    super::lcp_jacobi_blocks(
        gpu,
        (&system.matrix, &system.b, x),
        Some((&system.inv_diag, &system.mu)),
        (omega, iterations),
        (workgroups, None),
    )
}

/// Threads of the single-dispatch solver's workgroups: 256 on a hardware GPU, 32 on a CPU that
/// emulates one (SwiftShader runs a workgroup on one core; fewer threads, cheaper barriers).
fn group_threads(gpu: &Gpu) -> usize {
    if gpu.capabilities().software {
        32
    } else {
        256
    }
}

/// Whether [`solve_contacts`] solves `system` by `method` in one compute dispatch, where compute
/// kernels run: the accelerated solver wherever the system has its factors in workgroup-sized
/// groups of islands; projected Jacobi in the dense layout on a hardware adapter only (a
/// software renderer runs that dispatch's workgroups one after another on one core, slower
/// than the passes on SwiftShader).
fn single_dispatch(gpu: &Gpu, system: &ContactSystem, method: ContactMethod) -> bool {
    let caps = gpu.capabilities();
    caps.compute
        && match method {
            ContactMethod::Jacobi { .. } => system.dense && !caps.software,
            ContactMethod::Nesterov { .. } => {
                system.factors.as_ref().is_some_and(|f| f.groups.is_some())
            }
        }
}

/// The factors (made by `factors`, only where they will be read) of a block-layout system,
/// where [`solve_contacts`] will solve it by `method` from them: the accelerated solver always
/// does, in one dispatch where compute kernels run and every island fits a workgroup, else in
/// two fragment passes per iteration ([`contact_nesterov_factored`]: about a seventh of the
/// texel fetches of A's block rows; 3.6x faster frames on WebGL2 here). Then A's block rows
/// need not be built or uploaded ([`ContactLayout::count`] 0). `None` for projected Jacobi,
/// which runs passes over A's rows.
pub fn factors_for_solve(
    method: ContactMethod,
    factors: impl FnOnce() -> ContactFactors,
) -> Option<ContactFactors> {
    matches!(method, ContactMethod::Nesterov { .. }).then(factors)
}

/// Passes a frame runs before it first waits for the GPU and gives the page a turn: more than
/// the default frame's (so that frame never pauses), few enough that a long one pauses early.
/// Natively (the benchmark) there is no page to keep alive: no pause.
const FIRST_CHUNK: usize = if cfg!(target_arch = "wasm32") {
    128
} else {
    usize::MAX
};

/// `iterations` iterations of `method` on `system` from `x0`, the fastest way the device has:
/// all in one compute dispatch (see `single_dispatch`), or passes: the accelerated solver's
/// two per iteration from the matrix's factors where the system has them, else one per
/// iteration over A's rows. Passes run in chunks of about 50 ms of GPU time after the first
/// `FIRST_CHUNK`: between chunks the page gets a turn while the GPU catches up
/// ([`Gpu::settle`]), and `go_on` is asked whether to go on ([`Error::Cancelled`] when not), so
/// no frame holds the page and a long one can be cancelled.
pub async fn solve_contacts(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    method: ContactMethod,
    iterations: usize,
    go_on: &dyn Fn() -> bool,
) -> Result<Matrix> {
    if single_dispatch(gpu, system, method) {
        return match method {
            ContactMethod::Jacobi { omega } => {
                contact_jacobi_compute(gpu, system, x0, (omega, iterations), None)
            }
            ContactMethod::Nesterov { step, mu } => {
                contact_nesterov_compute(gpu, system, x0, (step, mu), iterations)
            }
        };
    }
    if let ContactMethod::Nesterov { step, mu } = method {
        if system.factors.is_none() {
            check_rows(system)?;
        }
        check_impulses(system, x0)?;
        check_step(step, mu)?;
    }
    let (mut state, mut done, mut chunk) = ((x0.clone(), x0.clone()), 0, FIRST_CHUNK);
    while done < iterations {
        let (start, count) = (now_ms(), chunk.min(iterations - done));
        state = match (method, &system.factors) {
            (ContactMethod::Jacobi { omega }, _) => {
                let x = contact_jacobi(gpu, system, &state.0, omega, count)?;
                (x.clone(), x)
            }
            (ContactMethod::Nesterov { step, mu }, factors) => {
                accelerated_passes(gpu, system, factors.as_ref(), state, (step, mu), count)?
            }
        };
        done += count;
        if done < iterations {
            gpu.settle().await?;
            if !go_on() {
                return Err(Error::Cancelled);
            }
            chunk = next_chunk(chunk, now_ms() - start, 50.0);
        }
    }
    Ok(state.0)
}
