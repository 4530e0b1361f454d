//! The wall's contact LCP, with Coulomb friction: projected Jacobi or accelerated projected
//! Jacobi (Nesterov's momentum), passes over A's rows or its factors or every iteration in one
//! compute dispatch, and no read-back inside the loop. One entry point, [`solve_contacts`],
//! takes the method and the path as data ([`ContactSolve`]) and checks them once.
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
    /// mu on each contact's first row, `rows x 1`, with A's rows (projected Jacobi reads it);
    /// empty with the factors alone.
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
    /// uploaded (`matrix`, `neighbours` and `mu` are then 1 x 1 placeholders).
    pub count: usize,
    /// True for the dense layout.
    pub dense: bool,
    /// b, 4H x S.
    pub b: Matrix,
    /// 1 / diag(A), 4H x S.
    pub inv_diag: Matrix,
    /// mu on each contact's first row, 4H x S, for projected Jacobi (the other solvers take
    /// mu as a number).
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
        // What this layout does not have, no kernel of its solvers reads: one texel, uploaded
        // once and shared (a fill would be a pass, which the next upload would submit on its
        // own; each upload is a queue write of its own).
        let placeholder = gpu.upload(&[0.0], 1, 1)?;
        let put = |data: &[f32], width: usize, pad: f32| {
            if width == 0 {
                return Ok(placeholder.clone());
            }
            let (rows, cols) = wrap.shape(width);
            gpu.upload(&wrap.wrap(data, width, pad), rows, cols)
        };
        let neighbours = match &layout.neighbours {
            Some(list) => put(list, layout.count / 4, -1.0)?,
            None => placeholder.clone(),
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
            mu: put(&layout.mu, usize::from(!layout.mu.is_empty()), 0.0)?,
            x0: put(&layout.x0, 1, 0.0)?,
        })
    }

    /// The impulses `x` (a solver's result, 4H x S) read back in contact order: 4C values,
    /// (normal, tangent 1, tangent 2, 0) per contact.
    pub async fn read(&self, gpu: &Gpu, x: &Matrix) -> Result<Vec<f32>> {
        check_impulses(self, x)?;
        Ok(self.wrap.unwrap(&gpu.read(x).await?))
    }

    /// [`Self::read`] of several results in one read-back ([`Gpu::read_many`]): the soft
    /// step's two.
    pub async fn read_many(&self, gpu: &Gpu, xs: &[&Matrix]) -> Result<Vec<Vec<f32>>> {
        xs.iter().try_for_each(|x| check_impulses(self, x))?;
        let values = gpu.read_many(xs).await?;
        Ok(values.iter().map(|v| self.wrap.unwrap(v)).collect())
    }
}

/// The iteration that solves a contact LCP: what the wall's settings choose
/// (`physics::Settings::method`) and what [`solve_contacts`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactMethod {
    /// Projected Jacobi: per contact x <- proj(x + omega D (A x + b)), normal impulse >= 0,
    /// friction within mu times it (the seed's solver).
    Jacobi,
    /// Accelerated projected Jacobi: each contact's impulses extrapolated along their last
    /// change (Nesterov's momentum, FISTA's schedule), stepped and projected; a contact whose
    /// step turns back restarts its momentum (`shaders/solvers/contact_nesterov.wgsl`). The
    /// float64 twin is `physics::ContactLcp::solve_nesterov`.
    Nesterov,
    /// Graph-coloured projected Gauss-Seidel: the contacts coloured so that no two of a colour
    /// share a moving body ([`super::contact_colours`]), then per sweep colour after colour,
    /// each contact of the colour solving its own 3 x 3 block row by row against the newest
    /// impulses of all others (`shaders/solvers/contact_gauss_seidel.wgsl`). Warm-started, a
    /// few sweeps hold the wall. The float64 twin is `physics::ContactLcp::solve_gauss_seidel`.
    GaussSeidel,
    /// The soft step: the frame in substeps, each a Gauss-Seidel sweep of the normal rows with
    /// a soft position correction and a rigid sweep of the whole contacts. It gives two
    /// results, so it has its own entry point, [`super::solve_soft`] (this one rejects it);
    /// the float64 twin is `physics::ContactLcp::solve_soft`.
    Soft,
}

impl ContactMethod {
    /// The API's name of the method (the page's and `wall.setSolver`'s).
    pub fn name(self) -> &'static str {
        match self {
            ContactMethod::Jacobi => "jacobi",
            ContactMethod::Nesterov => "nesterov",
            ContactMethod::GaussSeidel => "gauss-seidel",
            ContactMethod::Soft => "soft",
        }
    }

    /// The method the API names `name`, or a clear error.
    pub fn named(name: &str) -> Result<ContactMethod> {
        match name {
            "jacobi" => Ok(ContactMethod::Jacobi),
            "nesterov" => Ok(ContactMethod::Nesterov),
            "gauss-seidel" => Ok(ContactMethod::GaussSeidel),
            "soft" => Ok(ContactMethod::Soft),
            other => Err(Error::Argument(format!(
                "unknown solver \"{other}\": \"soft\" (substeps), \"gauss-seidel\" \
                 (graph-coloured), \"nesterov\" (accelerated) or \"jacobi\" (the seed's)"
            ))),
        }
    }
}

/// Where [`solve_contacts`] runs the iterations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContactPath {
    /// The fastest way the device and the system allow: every iteration in one compute
    /// dispatch where it runs (see `single_dispatch`), else fragment passes from the
    /// matrix's factors (the accelerated solver, where the system has them), else over A's rows.
    #[default]
    Auto,
    /// One fragment pass per iteration over A's rows (dense, or the block rows); the
    /// accelerated solver's writes two targets, the impulses and the extrapolation the next
    /// pass steps from. Any backend.
    Rows,
    /// The accelerated solver only: two fragment passes per iteration from the matrix's
    /// factors ([`ContactSystem::factors`], A = J M^-1 J^T + R): the bodies' velocities
    /// v = M^-1 J^T y (`shaders/solvers/contact_velocities.*`, one texel pair per body), then
    /// the step with A y = J v + R y (`contact_nesterov_factored.*`). About 13 texel fetches
    /// per contact and 4 per body's contact instead of A's block row (about 90 on the wall);
    /// any backend, islands of any size.
    Factors,
    /// EVERY iteration in one compute dispatch (WebGPU). Projected Jacobi: the dense layout,
    /// the solver of [`super::lcp_jacobi_blocks`] with the contacts' projection, `workgroups` as
    /// there (`None`: its default). The accelerated solver: from the matrix's factors, one
    /// workgroup per group of whole islands (`shaders/solvers/contact_nesterov_group.wgsl`;
    /// `workgroups` must be `None`).
    Dispatch {
        /// Workgroups that share projected Jacobi's rows.
        workgroups: Option<usize>,
    },
}

/// One contact solve: the method, its numbers, how many iterations and where
/// ([`solve_contacts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactSolve {
    /// The iteration.
    pub method: ContactMethod,
    /// The relaxation omega of projected Jacobi, or the accelerated solver's step (-1 /
    /// lambda_max(D A) converges): negative, the seed's convention x + step D (A x + b).
    pub step: f32,
    /// The friction coefficient the accelerated solver projects with, at least 0 (projected
    /// Jacobi reads each contact's from the system's `mu`).
    pub mu: f32,
    /// Iterations to run.
    pub iterations: usize,
    /// Where they run.
    pub path: ContactPath,
}

impl ContactSolve {
    /// `iterations` of projected Jacobi with the relaxation `omega`, the fastest way here.
    pub fn jacobi(omega: f32, iterations: usize) -> Self {
        ContactSolve {
            method: ContactMethod::Jacobi,
            step: omega,
            mu: 0.0,
            iterations,
            path: ContactPath::Auto,
        }
    }

    /// `iterations` of the accelerated solver with `step` and the friction coefficient `mu`,
    /// the fastest way here.
    pub fn nesterov(step: f32, mu: f32, iterations: usize) -> Self {
        ContactSolve {
            method: ContactMethod::Nesterov,
            step,
            mu,
            iterations,
            path: ContactPath::Auto,
        }
    }

    /// `iterations` sweeps of graph-coloured projected Gauss-Seidel with the friction
    /// coefficient `mu`, the fastest way here.
    pub fn gauss_seidel(mu: f32, iterations: usize) -> Self {
        ContactSolve {
            method: ContactMethod::GaussSeidel,
            step: 0.0,
            mu,
            iterations,
            path: ContactPath::Auto,
        }
    }

    /// The soft step in `substeps` substeps with the friction coefficient `mu`.
    pub fn soft(mu: f32, substeps: usize) -> Self {
        ContactSolve {
            method: ContactMethod::Soft,
            step: 0.0,
            mu,
            iterations: substeps,
            path: ContactPath::Auto,
        }
    }

    /// This solve on `path`.
    pub fn on(self, path: ContactPath) -> Self {
        ContactSolve { path, ..self }
    }
}

/// Passes a frame runs before it first waits for the GPU and gives the page a turn: more than
/// the default frame's (so that frame never pauses), few enough that a long one pauses early.
/// Natively (the benchmark) there is no page to keep alive: no pause.
const FIRST_CHUNK: usize = if cfg!(target_arch = "wasm32") {
    128
} else {
    usize::MAX
};

/// Runs `solve` on `system` from the impulses `x0` (4H x S, as `system.x0`) and returns the
/// new impulses, with no read-back inside the loop: texla's one contact solver. Its inputs are
/// checked once, then the path runs ([`ContactPath`]; `Auto` picks the fastest). Passes run in
/// chunks where `go_on` is given: about 50 ms of GPU time each after the first
/// `FIRST_CHUNK`; between chunks the page gets a turn while the GPU catches up
/// ([`Gpu::settle`]) and `go_on` is asked whether to go on ([`Error::Cancelled`] when not), so
/// no frame holds the page and a long one can be cancelled. Without `go_on` every pass is
/// recorded at once. A path the device or the system lacks is a clear error.
pub async fn solve_contacts(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    solve: ContactSolve,
    go_on: Option<&dyn Fn() -> bool>,
) -> Result<Matrix> {
    check_impulses(system, x0)?;
    let ContactSolve {
        method,
        step,
        mu,
        iterations,
        ..
    } = solve;
    match method {
        ContactMethod::Jacobi => super::check_omega(step)?,
        ContactMethod::Nesterov => check_step(step, mu)?,
        ContactMethod::GaussSeidel => check_mu(mu)?,
        ContactMethod::Soft => return Err(soft_on_the_cpu()),
    }
    let factors = match resolve(gpu, system, solve) {
        ContactPath::Dispatch { .. } | ContactPath::Rows
            if method == ContactMethod::GaussSeidel =>
        {
            return Err(Error::Unsupported(
                "graph-coloured Gauss-Seidel runs as fragment passes from the matrix's factors \
                 (ContactPath::Factors), not over A's rows or in one dispatch"
                    .into(),
            ))
        }
        ContactPath::Dispatch { workgroups } => {
            return dispatch(gpu, system, x0, solve, workgroups)
        }
        ContactPath::Factors if method == ContactMethod::Jacobi => {
            return Err(Error::Unsupported(
                "projected Jacobi runs over A's rows or in one dispatch, not from the matrix's \
                 factors: only the accelerated solver reads them"
                    .into(),
            ))
        }
        ContactPath::Factors => Some(system.factors.as_ref().ok_or_else(|| {
            Error::Unsupported(
                "the factored contact passes need the block layout with the matrix's factors"
                    .into(),
            )
        })?),
        _ => {
            check_rows(system)?;
            None
        }
    };
    let (mut state, mut done) = ((x0.clone(), x0.clone()), 0);
    let mut chunk = if go_on.is_some() {
        FIRST_CHUNK
    } else {
        usize::MAX
    };
    while done < iterations {
        let (start, count) = (now_ms(), chunk.min(iterations - done));
        state = match method {
            ContactMethod::Jacobi => {
                let mut x = state.0;
                for _ in 0..count {
                    x = jacobi_pass(gpu, system, &x, step)?;
                }
                (x.clone(), x)
            }
            ContactMethod::Nesterov => {
                accelerated_passes(gpu, system, factors, state, (step, mu), count)?
            }
            ContactMethod::Soft => return Err(soft_on_the_cpu()),
            ContactMethod::GaussSeidel => {
                let f = factors.expect("Gauss-Seidel resolves to the factored passes");
                let x = gauss_seidel_passes(gpu, system, f, state.0, mu, count)?;
                (x.clone(), x)
            }
        };
        done += count;
        if let (true, Some(go_on)) = (done < iterations, go_on) {
            gpu.settle().await?;
            if !go_on() {
                return Err(Error::Cancelled);
            }
            chunk = next_chunk(chunk, now_ms() - start, 50.0);
        }
    }
    Ok(state.0)
}

/// The soft step has its own entry point.
fn soft_on_the_cpu() -> Error {
    Error::Unsupported("the soft step is solved by solver::solve_soft".into())
}

/// The factors (made by `factors`, only where they will be read) of a block-layout system,
/// where [`solve_contacts`] will solve it by `method` from them on [`ContactPath::Auto`]: the
/// accelerated solver always does, in one dispatch where compute kernels run and every island
/// fits a workgroup, else in two fragment passes per iteration ([`ContactPath::Factors`]:
/// about a seventh of the texel fetches of A's block rows; 3.6x faster frames on WebGL2 here).
/// Then A's block rows need not be built or uploaded ([`ContactLayout::count`] 0). `None` for
/// projected Jacobi, which runs passes over A's rows.
pub fn factors_for_solve(
    method: ContactMethod,
    factors: impl FnOnce() -> ContactFactors,
) -> Option<ContactFactors> {
    (method != ContactMethod::Jacobi).then(factors)
}

/// `sweeps` sweeps of graph-coloured projected Gauss-Seidel from the impulses `x`: per colour
/// the bodies' velocities from the newest impulses (`contact_velocities`), then the colour's
/// contacts' step (`contact_gauss_seidel`), 2 passes per colour.
fn gauss_seidel_passes(
    gpu: &Gpu,
    system: &ContactSystem,
    f: &FactorSystem,
    mut x: Matrix,
    mu: f32,
    sweeps: usize,
) -> Result<Matrix> {
    for _ in 0..sweeps {
        for colour in 0..f.colours {
            let v = velocities(gpu, f, &x)?;
            let inputs = [&f.jacobian, &v, &x, &system.b, &system.inv_diag];
            x = gpu.run(
                Program::new(
                    kernels::contact_gauss_seidel(),
                    inputs.iter().map(|m| m.layout()).collect(),
                    x.layout(),
                )
                .with_params(&[colour as f32, mu, f.regularisation]),
                &inputs,
            )?;
        }
    }
    Ok(x)
}

/// The bodies' velocities M^-1 J^T `impulses` (`contact_velocities`), from the factors `f`.
pub(super) fn velocities(gpu: &Gpu, f: &FactorSystem, impulses: &Matrix) -> Result<Matrix> {
    let inputs = [&f.jacobian, &f.bodies, impulses];
    gpu.run(
        Program::new(
            kernels::contact_velocities(),
            inputs.iter().map(|m| m.layout()).collect(),
            f.velocities,
        )
        .with_params(&[f.body_width as f32]),
        &inputs,
    )
}

/// `system` with A's rows uploaded (what the passes read), not its factors alone.
fn check_rows(system: &ContactSystem) -> Result<()> {
    if system.count == 0 {
        return Err(Error::Unsupported(
            "this contact system was uploaded as its matrix's factors only: only the \
             single-dispatch solver and the factored passes take it"
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

/// Gauss-Seidel's and the soft step's friction coefficient must be at least 0.
pub(super) fn check_mu(mu: f32) -> Result<()> {
    if mu >= 0.0 && mu.is_finite() {
        Ok(())
    } else {
        Err(Error::Argument(format!(
            "the contact solver needs a finite mu >= 0, got {mu}"
        )))
    }
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

/// One projected Jacobi iteration over A's rows, in one pass: the new impulses from `x`.
fn jacobi_pass(gpu: &Gpu, system: &ContactSystem, x: &Matrix, omega: f32) -> Result<Matrix> {
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
            kernels::contact_jacobi(),
            inputs.iter().map(|m| m.layout()).collect(),
            x.layout(),
        )
        .with_params(&[omega, system.count as f32, dense]),
        &inputs,
    )
}

/// `iterations` accelerated iterations from the impulses `x` and the extrapolation `y` of an
/// earlier one (fourth row: its momentum counter, 0 in `x0`); returns both. With `factors`,
/// two passes each ([`ContactPath::Factors`]), else one over A's rows ([`ContactPath::Rows`]).
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
                v = velocities(gpu, f, &y)?;
                let params = vec![step, mu, f.regularisation];
                (
                    kernels::contact_nesterov_factored(),
                    &f.jacobian,
                    &v,
                    params,
                )
            }
            None => {
                let params = vec![step, system.count as f32, dense, mu];
                (
                    kernels::contact_nesterov(),
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

/// `solve` in ONE compute dispatch ([`ContactPath::Dispatch`]), its numbers checked.
fn dispatch(
    gpu: &Gpu,
    system: &ContactSystem,
    x0: &Matrix,
    solve: ContactSolve,
    workgroups: Option<usize>,
) -> Result<Matrix> {
    let what = match solve.method {
        ContactMethod::Jacobi => "the single-dispatch contact solver",
        _ => "the single-dispatch accelerated contact solver",
    };
    gpu.capabilities().needs_compute(what)?;
    if solve.method == ContactMethod::Jacobi {
        if !system.dense {
            return Err(Error::Unsupported(
                "the single-dispatch contact solver takes the dense layout".into(),
            ));
        }
        return super::lcp_jacobi_blocks(
            gpu,
            (&system.matrix, &system.b, x0),
            Some((&system.inv_diag, &system.mu)),
            (solve.step, solve.iterations),
            (workgroups, None),
        );
    }
    if workgroups.is_some() {
        return Err(Error::Unsupported(
            "the single-dispatch accelerated contact solver runs one workgroup per group of \
             islands: workgroups does not apply"
                .into(),
        ));
    }
    let Some((f, groups)) = system
        .factors
        .as_ref()
        .and_then(|f| Some((f, f.groups.as_ref()?)))
    else {
        return Err(Error::Unsupported(
            "the single-dispatch accelerated contact solver needs the block layout with the \
             matrix's factors"
                .into(),
        ));
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
            kernels::contact_nesterov_group(
                group_threads(gpu),
                gpu.capabilities().software,
                groups.wide,
            ),
            inputs.iter().map(|m| m.layout()).collect(),
            x0.layout(),
        )
        .with_params(&[
            solve.step,
            f.body_width as f32,
            solve.iterations as f32,
            solve.mu,
            f.regularisation,
        ])
        .with_workgroups(groups.count),
        &inputs,
    )
}

/// The path [`ContactPath::Auto`] takes for `solve` (any other is kept): one dispatch where
/// [`single_dispatch`] says so, else the accelerated solver's factored passes where the system
/// has the factors, else passes over A's rows.
fn resolve(gpu: &Gpu, system: &ContactSystem, solve: ContactSolve) -> ContactPath {
    match solve.path {
        ContactPath::Auto if single_dispatch(gpu, system, solve.method) => {
            ContactPath::Dispatch { workgroups: None }
        }
        ContactPath::Auto if solve.method != ContactMethod::Jacobi && system.factors.is_some() => {
            ContactPath::Factors
        }
        ContactPath::Auto => ContactPath::Rows,
        path => path,
    }
}

/// Threads of the single-dispatch solver's workgroups: 256 on a hardware GPU, 32 on a CPU that
/// emulates one (SwiftShader runs a workgroup on one core; fewer threads, cheaper barriers).
pub(super) fn group_threads(gpu: &Gpu) -> usize {
    if gpu.capabilities().software {
        32
    } else {
        256
    }
}

/// Whether [`ContactPath::Auto`] solves `system` by `method` in one compute dispatch, where
/// compute kernels run: the accelerated solver wherever the system has its factors (a
/// workgroup per group of islands; on a software renderer only while every island fits one),
/// projected Jacobi in the dense layout on a hardware adapter only. A software renderer runs a
/// workgroup on one core, slower there than the passes for a big island or the dense dispatch
/// (SwiftShader through Dawn, 10 walls after the ball: 479 ms a frame against 332).
fn single_dispatch(gpu: &Gpu, system: &ContactSystem, method: ContactMethod) -> bool {
    let caps = gpu.capabilities();
    let groups = system.factors.as_ref().and_then(|f| f.groups.as_ref());
    caps.compute
        && match method {
            ContactMethod::Jacobi => system.dense && !caps.software,
            ContactMethod::Nesterov => groups.is_some_and(|g| !caps.software || g.wide.0 == 0),
            ContactMethod::GaussSeidel | ContactMethod::Soft => false,
        }
}
