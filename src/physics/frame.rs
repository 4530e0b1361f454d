//! Conducts one frame of the wall, as rapier's pipeline does: the world finds its contacts and
//! assembles the LCP ([`World::begin_frame`]), the LCP becomes plain vectors
//! ([`ContactLcp::gpu_layout`]), the solver solves them on the GPU
//! ([`solver::solve_contacts`]), and the world applies the impulses and integrates
//! ([`World::end_frame`]).

use super::{ContactLcp, Mode, World};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::solver::{self, ContactLayout, ContactMethod, ContactSystem};

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
    let lcp = world.begin_frame();
    let iterations = world.iterations(&lcp);
    let start = now();
    let (impulses, step) = if lcp.contacts.is_empty() {
        (Vec::new(), 0.0)
    } else {
        let mode = world.settings.mode;
        let method = world.method(&lcp);
        // The block layout as its factors alone where one dispatch will solve it (A's block
        // rows are ten times the data), else A's rows too.
        let layout = match mode {
            Mode::Blocks => {
                let factors = lcp.factors(&world.bodies);
                if solver::solves_from_factors(gpu, method, &lcp.island_runs(), &factors) {
                    lcp.factored_layout(factors)
                } else {
                    ContactLayout {
                        factors: Some(factors),
                        ..lcp.gpu_layout(mode)
                    }
                }
            }
            Mode::Dense => lcp.gpu_layout(mode),
        };
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
        let x = solver::solve_contacts(gpu, &system, &system.x0, method, iterations)?;
        let data = system.read(gpu, &x).await?;
        let step = match method {
            ContactMethod::Jacobi { omega } => omega,
            ContactMethod::Nesterov { step, .. } => step,
        };
        let impulses = data
            .chunks_exact(4)
            .map(|c| lcp.project([c[0].into(), c[1].into(), c[2].into()]))
            .collect();
        (impulses, f64::from(step))
    };
    let solve_ms = now() - start;
    world.end_frame(&lcp, &impulses, (iterations, step))?;
    Ok((lcp, impulses, solve_ms))
}
