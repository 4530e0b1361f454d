//! The wall's frames natively (`--walls 1,10,100`, `--wall-frames N`, `--no-wall`).

use std::time::Instant;

use glam::DVec3;
use texla::error::Result;
use texla::gpu::Gpu;
use texla::physics::{gpu_frame, wall as build, Mode, Settings, WallSpec, World, WALL_SPACING};
use texla::solver::ContactMethod;

use super::{block_on, median, Options};

/// The wall as the page runs it (`physics::gpu_frame`: contacts and assembly on the CPU,
/// upload, the solve, read-back, integration), frame after frame: the default (accelerated
/// solver, 80 iterations, blocks) for each scene of `--walls` (default 1 and 10 walls, 60 and
/// 600 cubes; 100 walls are 6000 cubes, 42,000 contacts, wrapped into several texel columns)
/// awake (sleeping off), asleep (the default, after 3 s standing) and in the 2 s after the ball
/// hits the sleeping wall; seed 000's preset (projected Jacobi, omega -0.1, 2n iterations) in
/// both layouts for one wall. Frames timed: 60 awake for one wall, 20 for more (5 past 10
/// walls), 60 asleep, 120 after the ball, or `--wall-frames` for every case. Each line: ms per
/// whole frame and of its GPU part (medians, and the slowest frame), the float64 CPU frame of
/// the same world (`World::step_cpu`, one core), and the last solved frame's largest difference
/// between the GPU's impulses and the float64 solve of the same LCP by the same method.
/// `--wall-copies`: the asleep and ball cases of several walls start from copies of one wall
/// that fell asleep on its own instead of standing every wall (on a CPU-emulated GPU, 100
/// walls stand their 180 frames in an hour).
pub fn wall(gpu: &Gpu, o: &Options) -> Result<()> {
    let start = Instant::now();
    let now = || start.elapsed().as_secs_f64() * 1e3;
    println!("\nThe wall, frames of the standing wall as the page runs them:");
    let seed_blocks = Settings {
        mode: Mode::Blocks,
        ..Settings::seed()
    };
    let awake = Settings {
        sleeping: false,
        ..Settings::default()
    };
    let frames = |default: usize| o.wall_frames.unwrap_or(default);
    // (name, settings, walls, frames standing first, then the ball?, frames timed)
    let mut runs = Vec::new();
    for &walls in &o.walls {
        let awake_frames = match walls {
            1 => 60,
            2..=10 => 20,
            _ => 5,
        };
        runs.extend([
            (
                format!("awake, {walls} wall(s)"),
                awake,
                walls,
                0,
                false,
                frames(awake_frames),
            ),
            (
                format!("asleep, {walls}"),
                Settings::default(),
                walls,
                180,
                false,
                frames(60),
            ),
            (
                format!("ball hits, {walls}"),
                Settings::default(),
                walls,
                180,
                true,
                frames(120),
            ),
        ]);
    }
    if o.walls.contains(&1) {
        runs.push(("seed preset, blocks".into(), seed_blocks, 1, 0, false, 4));
        runs.push((
            "seed preset, dense".into(),
            Settings::seed(),
            1,
            0,
            false,
            4,
        ));
    }
    for (name, settings, walls, standing, ball, frames) in runs {
        let spec = WallSpec {
            walls,
            ..WallSpec::default()
        };
        let copies = o.wall_copies && walls > 1 && standing > 0;
        let mut world = if copies {
            asleep_copies(gpu, walls, standing, &now)?
        } else {
            World::new(build(&spec), settings)
        };
        block_on(gpu_frame(gpu, &mut world, &now))?; // builds the pipelines
        for _ in 0..if copies { 0 } else { standing } {
            block_on(gpu_frame(gpu, &mut world, &now))?;
        }
        let name = if copies {
            format!("{name} (copies)")
        } else {
            name
        };
        if ball {
            // The page's throw: 0.5 m, 100 kg at 15 m/s into the middle of the front wall.
            let front = -0.5 * (walls as f64 - 1.0) * WALL_SPACING * spec.edge;
            let (from, velocity) = (
                DVec3::new(0.0, 2.0, front - 3.0),
                DVec3::new(0.0, 0.0, 15.0),
            );
            world.throw_ball(from, velocity, 0.5, 100.0);
        }
        let mut on_cpu = world.clone();
        let (mut whole, mut solve) = (Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..frames {
            let t0 = now();
            let (lcp, impulses, ms) = block_on(gpu_frame(gpu, &mut world, &now))?;
            whole.push(now() - t0);
            solve.push(ms);
            if !lcp.contacts.is_empty() {
                last = Some((lcp, impulses));
            }
        }
        let t0 = now();
        for _ in 0..frames.min(5) {
            on_cpu.step_cpu()?;
        }
        let cpu_ms = (now() - t0) / frames.min(5) as f64;
        let slowest = whole.iter().copied().fold(0.0, f64::max);
        let Some((lcp, impulses)) = last else {
            println!(
                "{name:24} {} cubes, {} asleep, nothing to solve: frame {:8.3} ms (median of {frames}, slowest {slowest:.3}); float64 CPU frame {cpu_ms:9.3} ms",
                world.bodies.len(),
                world.stats.asleep,
                median(whole),
            );
            continue;
        };
        let iterations = world.iterations(&lcp);
        let exact = match world.method(&lcp) {
            ContactMethod::Jacobi { omega } => lcp.solve_jacobi(f64::from(omega), iterations),
            ContactMethod::Nesterov { step, .. } => lcp.solve_nesterov(f64::from(step), iterations),
        };
        let scale = exact.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        let diff = exact
            .iter()
            .zip(&impulses)
            .flat_map(|(e, g)| (0..3).map(move |k| (e[k] - g[k]).abs()))
            .fold(0.0f64, f64::max);
        println!(
            "{name:24} {} cubes, contacts {}, iterations {iterations}: frame {:8.3} ms, GPU part {:8.3} ms (medians of {frames}; slowest frame {slowest:.3}); float64 CPU frame {cpu_ms:9.3} ms; max |GPU - float64| {diff:.1e} of {scale:.1e}",
            world.bodies.len(),
            lcp.contacts.len(),
            median(whole),
            median(solve),
        );
    }
    Ok(())
}

/// `walls` copies of one wall that stood `standing` frames at the default settings (asleep by
/// then), placed one behind the other as `physics::wall` places its walls, each copy its own
/// sleeping island.
fn asleep_copies(gpu: &Gpu, walls: usize, standing: usize, now: &dyn Fn() -> f64) -> Result<World> {
    let spec = WallSpec::default();
    let mut one = World::new(build(&spec), Settings::default());
    for _ in 0..standing {
        block_on(gpu_frame(gpu, &mut one, now))?;
    }
    let n = one.bodies.len();
    let mut bodies = Vec::with_capacity(n * walls);
    for w in 0..walls {
        let z = (w as f64 - 0.5 * (walls as f64 - 1.0)) * WALL_SPACING * spec.edge;
        bodies.extend(one.bodies.iter().map(|b| {
            let mut copy = b.clone();
            copy.position.z += z;
            copy.asleep = b.asleep.map(|island| island + w * n);
            copy
        }));
    }
    Ok(World::new(bodies, Settings::default()))
}
