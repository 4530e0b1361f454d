//! Conducts one frame of the wall, as rapier's pipeline does: the world finds its contacts (the
//! narrow phase on the GPU where [`super::NarrowPhase`] says so) and assembles the LCP
//! ([`World::contacts`], [`World::lcp`]), the LCP becomes plain vectors
//! ([`ContactLcp::gpu_layout`]), the solver solves them on the GPU
//! ([`solver::solve_contacts`]), and the world applies the impulses and integrates
//! ([`World::end_frame`]).

use super::soft::soft_numbers;
use super::{gpu_contacts, Contact, ContactLcp, Mode, World};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::matrix::Matrix;
use crate::solver::{self, ContactLayout, ContactMethod, ContactSolve, ContactSystem, SoftStep};

/// Where one frame's milliseconds went, each part timed by the clock given to
/// [`gpu_frame_timed`]. The CPU's parts come first; the GPU part is the upload, the solve and
/// the read-back.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameTimes {
    /// Contacts: waking touched islands, the broad and narrow phases (the narrow phase on the
    /// GPU where the settings choose it: its upload and read-back too), gravity
    /// ([`World::contacts`]).
    pub contacts: f64,
    /// The LCP: warm start and assembly ([`World::lcp`]).
    pub assembly: f64,
    /// The solver's step: the Lanczos steps of [`ContactLcp::lambda_max`]
    /// ([`World::contact_solve`]).
    pub step: f64,
    /// The textures' data in float32 ([`ContactLcp::gpu_layout`]).
    pub layout: f64,
    /// [`ContactSystem::upload`]: the wrap's copies and the writes to the GPU's queue.
    pub upload: f64,
    /// The solve and the read-back: the GPU's work and the wait for it.
    pub solve: f64,
    /// Projecting the impulses, applying them and integrating ([`World::end_frame`]).
    pub end: f64,
    /// Bytes of the textures uploaded (4 per float, texel padding not counted).
    pub bytes: usize,
    /// Blocks per contact in the textures: K (blocks) or C (dense); 0 with no contact or the
    /// matrix as its factors alone.
    pub count: usize,
    /// Whether the narrow phase ran on the GPU ([`super::NarrowPhase`]).
    pub gpu_contacts: bool,
}

impl FrameTimes {
    /// The CPU's part, ms: everything but the upload, the solve and the read-back.
    pub fn cpu(&self) -> f64 {
        self.contacts + self.assembly + self.step + self.layout + self.end
    }

    /// The GPU part, ms: the upload, the solve and the read-back.
    pub fn gpu(&self) -> f64 {
        self.upload + self.solve
    }
}

/// One frame of `world` with its contact LCP solved on the GPU: the LCP's textures are
/// uploaded, the world's solver runs its iterations (in one compute dispatch or one pass each,
/// as [`solver::solve_contacts`] decides from the device's capabilities), the impulses come
/// back in one read. Returns the frame's LCP, the impulses applied and the milliseconds the
/// GPU part took (upload, solve and read-back), timed by `now` (ms).
pub async fn gpu_frame(
    gpu: &Gpu,
    world: &mut World,
    now: &dyn Fn() -> f64,
) -> Result<(ContactLcp, Vec<[f64; 3]>, f64)> {
    let (lcp, impulses, times) = gpu_frame_timed(gpu, world, now, &|| true).await?;
    Ok((lcp, impulses, times.gpu()))
}

/// [`gpu_frame`], with the time of each of its parts; a long solve asks `go_on` between its
/// chunks whether to go on, and fails with [`Error::Cancelled`] when not.
pub async fn gpu_frame_timed(
    gpu: &Gpu,
    world: &mut World,
    now: &dyn Fn() -> f64,
    go_on: &dyn Fn() -> bool,
) -> Result<(ContactLcp, Vec<[f64; 3]>, FrameTimes)> {
    let mut times = FrameTimes::default();
    let mut clock = now();
    let mut lap = |part: &mut f64| {
        let t = now();
        *part = t - clock;
        clock = t;
    };
    times.gpu_contacts = world.settings.narrow_phase.on_gpu(gpu, world.bodies.len());
    let contacts = contacts(gpu, world, times.gpu_contacts).await?;
    lap(&mut times.contacts);
    let lcp = world.lcp(contacts);
    lap(&mut times.assembly);
    let iterations = world.iterations(&lcp);
    let (impulses, step, moved) = if lcp.contacts.is_empty() {
        (Vec::new(), 0.0, None)
    } else {
        let solve = world.contact_solve(&lcp);
        lap(&mut times.step);
        let mode = world.settings.mode;
        let layout = layout(&lcp, mode, &solve);
        lap(&mut times.layout);
        let (system, count, bytes) = upload(gpu, &lcp, mode, layout)?;
        (times.count, times.bytes) = (count, bytes);
        lap(&mut times.upload);
        let soft = (solve.method == ContactMethod::Soft)
            .then(|| soft_numbers(&world.settings, iterations, lcp.mu));
        let (impulses, moved) = solve_uploaded(gpu, &lcp, &system, (solve, soft), go_on).await?;
        lap(&mut times.solve);
        (impulses, f64::from(solve.step), moved)
    };
    match moved {
        Some(p) => world.end_frame_moved(&lcp, &impulses, (&p, iterations), (iterations, step))?,
        None => world.end_frame(&lcp, &impulses, (iterations, step))?,
    }
    lap(&mut times.end);
    Ok((lcp, impulses, times))
}

/// The frame's contacts ([`World::contacts`]), from the narrow phase on the GPU where `on_gpu`
/// (the world's settings' choice, [`super::NarrowPhase`]).
async fn contacts(gpu: &Gpu, world: &mut World, on_gpu: bool) -> Result<Vec<Contact>> {
    if !on_gpu {
        return Ok(world.contacts());
    }
    let s = world.settings;
    world.wake_unless_sleeping();
    loop {
        let contacts = gpu_contacts(gpu, &world.bodies, s.margin, s.dt).await?;
        if !world.wake_touched(&contacts) {
            world.fall();
            return Ok(contacts);
        }
    }
}

/// `lcp`, solved on the GPU by `solve` from its warm start (`lcp.x0`): the impulses, projected.
/// The frame's solve, alone: the LCP lesson solves one frame's LCP by each solver.
pub async fn gpu_solve(
    gpu: &Gpu,
    lcp: &ContactLcp,
    mode: Mode,
    solve: ContactSolve,
) -> Result<Vec<[f64; 3]>> {
    if lcp.contacts.is_empty() {
        return Ok(Vec::new());
    }
    let (system, _, _) = upload(gpu, lcp, mode, layout(lcp, mode, &solve))?;
    Ok(solve_uploaded(gpu, lcp, &system, (solve, None), &|| true)
        .await?
        .0)
}

/// The solve of an uploaded `system` and the read-back of its impulses, projected; by the
/// soft step where `soft` gives its numbers, with the impulses behind the displacement too.
async fn solve_uploaded(
    gpu: &Gpu,
    lcp: &ContactLcp,
    system: &ContactSystem,
    (solve, soft): (ContactSolve, Option<SoftStep>),
    go_on: &dyn Fn() -> bool,
) -> Result<(Vec<[f64; 3]>, Option<Vec<[f64; 3]>>)> {
    let (x, moved) = match soft {
        Some(soft) => {
            let (x, moved) = solver::solve_soft(gpu, system, soft)?;
            (x, Some(moved))
        }
        None => {
            let x = solver::solve_contacts(gpu, system, &system.x0, solve, Some(go_on)).await?;
            (x, None)
        }
    };
    // One read-back for both of the soft step's results.
    let results: Vec<&Matrix> = std::iter::once(&x).chain(&moved).collect();
    let mut read = system.read_many(gpu, &results).await?.into_iter();
    let mut next = || read.next().map(|v| impulses_of(&v)).unwrap_or_default();
    let impulses = next().into_iter().map(|x| lcp.project(x)).collect();
    Ok((impulses, moved.is_some().then(next)))
}

/// Three impulses per contact from the GPU's 4 rows per contact.
fn impulses_of(data: &[f32]) -> Vec<[f64; 3]> {
    data.chunks_exact(4)
        .map(|c| [c[0].into(), c[1].into(), c[2].into()])
        .collect()
}

/// `lcp` as the textures' data in the layout `solve` reads: in the block layout its factors
/// alone where the solver reads them (A's block rows are ten times the data), else A's rows.
fn layout(lcp: &ContactLcp, mode: Mode, solve: &ContactSolve) -> ContactLayout {
    let factors = (mode == Mode::Blocks)
        .then(|| solver::factors_for_solve(solve.method, || lcp.factors()))
        .flatten();
    match factors {
        Some(factors) => lcp.factored_layout(factors),
        None => lcp.gpu_layout(mode),
    }
}

/// `layout` (of `lcp`) uploaded, with its blocks per contact and the bytes uploaded. Takes the
/// layout so that it is freed before the solve: the CPU's copy of A is as large as the GPU's.
fn upload(
    gpu: &Gpu,
    lcp: &ContactLcp,
    mode: Mode,
    layout: ContactLayout,
) -> Result<(ContactSystem, usize, usize)> {
    let system = ContactSystem::upload(gpu, &layout).map_err(|e| match e {
        Error::TooLarge { width, height, .. } => Error::Simulation(format!(
            "this frame's {} contacts do not fit the GPU: {} they need a texture of {width} \
             x {height} texels, past this device's {} a side{}",
            lcp.contacts.len(),
            match mode {
                Mode::Dense => "the dense layout has 4 columns per contact, so".to_string(),
                Mode::Blocks => format!(
                    "wrapped into columns of at most {} contacts, {} texel columns each,",
                    gpu.tile_limit(),
                    layout.width.max(solver::JACOBIAN_TEXELS),
                ),
            },
            gpu.tile_limit(),
            if mode == Mode::Dense {
                " (the block layout holds far more)"
            } else {
                ""
            }
        )),
        e => e,
    })?;
    let mut textures = vec![&system.matrix, &system.neighbours, &system.b];
    textures.extend([&system.inv_diag, &system.mu, &system.x0]);
    if let Some(f) = &system.factors {
        textures.extend([&f.jacobian, &f.bodies]);
        textures.extend(f.groups.as_ref().map(|g| &g.texels));
    }
    let bytes = textures.iter().map(|m| 4 * m.rows() * m.cols()).sum();
    Ok((system, layout.count, bytes))
}
