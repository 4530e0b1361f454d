//! The wall's frames natively (`--walls 1,10,100`, `--wall-frames N`, `--no-wall`,
//! `--wall-cpu`).

use std::time::Instant;

use glam::DVec3;
use texla::error::Result;
use texla::gpu::Gpu;
use texla::physics::{
    find_contacts, gpu_contacts, gpu_frame, gpu_frame_timed, wall as build, Contact, FrameTimes,
    Mode, Settings, WallSpec, World, BALL, WALL_SPACING,
};
use texla::solver::ContactMethod;

use crate::common::{block_on, median};
use crate::options::Options;

/// One scene of the wall, timed frame after frame.
struct Case {
    name: String,
    settings: Settings,
    walls: usize,
    /// Frames the wall stands before the ball is thrown (or before the timing, without one).
    standing: usize,
    /// Whether the ball is thrown, and how many frames it flies before the timing starts.
    ball: Option<usize>,
    /// Frames timed.
    frames: usize,
}

/// The wall as the page runs it (`physics::gpu_frame`: contacts and assembly on the CPU,
/// upload, the solve, read-back, integration), frame after frame: the default (accelerated
/// solver, 80 iterations, blocks) for each scene of `--walls` (default 1 and 10 walls, 60 and
/// 600 cubes; 100 walls are 6000 cubes, 42,000 contacts, wrapped into several texel columns)
/// awake (sleeping off), awake with the ball thrown into it (the 12 frames of its flight
/// untimed), asleep (the default, after 3 s standing) and in the 2 s after the ball hits the
/// sleeping wall; the ShaderX2 article's preset (projected Jacobi, omega -0.1, 2n iterations) in both
/// layouts for one wall. `--wall-cpu`: the two awake scenes only. Frames timed: 60 awake for
/// one wall, 20 for more (5 past 10 walls), 60 asleep, 120 after the ball, or `--wall-frames`
/// for every case. Each line: ms per whole frame and of its GPU part (medians, and the slowest
/// frame), the float64 CPU frame of the same world (`World::step_cpu`, one core), and the last
/// solved frame's largest difference between the GPU's impulses and the float64 solve of the
/// same LCP by the same method; then the medians of the frame's parts (`FrameTimes`: the CPU's
/// contacts, assembly, step and float32 layout, the upload, the solve with its read-back, the
/// end of the frame), K and the megabytes uploaded per frame.
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
    let method = match o.wall_solver.as_deref() {
        Some(name) => ContactMethod::named(name)?,
        None => Settings::default().method,
    };
    let awake = Settings {
        sleeping: false,
        method,
        narrow_phase: o.narrow_phase,
        ..Settings::default()
    };
    let frames = |default: usize| o.wall_frames.unwrap_or(default);
    let mut runs = Vec::new();
    for &walls in &o.walls {
        let awake_frames = match walls {
            1 => 60,
            2..=10 => 20,
            _ => 5,
        };
        let case = |name: String, settings, standing, ball, timed| Case {
            name,
            settings,
            walls,
            standing,
            ball,
            frames: frames(timed),
        };
        runs.extend([
            case(
                format!("awake, {walls} wall(s)"),
                awake,
                0,
                None,
                awake_frames,
            ),
            case(
                format!("awake, ball, {walls}"),
                awake,
                0,
                Some(12),
                awake_frames,
            ),
        ]);
        if !o.wall_cpu {
            runs.extend([
                case(
                    format!("asleep, {walls}"),
                    Settings::default(),
                    180,
                    None,
                    60,
                ),
                case(
                    format!("ball hits, {walls}"),
                    Settings::default(),
                    180,
                    Some(0),
                    120,
                ),
            ]);
        }
    }
    if o.walls.contains(&1) && !o.wall_cpu {
        for (name, settings) in [
            ("seed preset, blocks", seed_blocks),
            ("seed preset, dense", Settings::seed()),
        ] {
            runs.push(Case {
                name: name.into(),
                settings,
                walls: 1,
                standing: 0,
                ball: None,
                frames: 4,
            });
        }
    }
    for Case {
        name,
        settings,
        walls,
        standing,
        ball,
        frames,
    } in runs
    {
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
        if let Some(flight) = ball {
            // The page's ball into the middle of the front wall.
            let front = -0.5 * (walls as f64 - 1.0) * WALL_SPACING * spec.edge;
            let (radius, mass, speed) = BALL;
            let (from, velocity) = (
                DVec3::new(0.0, 2.0, front - 3.0),
                DVec3::new(0.0, 0.0, speed),
            );
            world.throw_ball(from, velocity, radius, mass);
            for _ in 0..flight {
                block_on(gpu_frame(gpu, &mut world, &now))?;
            }
        }
        let mut on_cpu = world.clone();
        let (mut whole, mut parts) = (Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..frames {
            let t0 = now();
            let (lcp, impulses, times) =
                block_on(gpu_frame_timed(gpu, &mut world, &now, &|| true))?;
            whole.push(now() - t0);
            parts.push(times);
            if !lcp.contacts.is_empty() {
                last = Some((lcp, impulses));
            }
        }
        if world.settings.narrow_phase.on_gpu(gpu, world.bodies.len()) {
            let s = world.settings;
            let found = block_on(gpu_contacts(gpu, &world.bodies, s.margin, s.dt))?;
            let exact = find_contacts(&world.bodies, s.margin, s.dt);
            println!(
                "{:24} narrow phase on the GPU: {}",
                "",
                contact_gap(&found, &exact)
            );
        }
        let solve = parts.iter().map(FrameTimes::gpu).collect();
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
            print_parts(&parts);
            continue;
        };
        let iterations = world.iterations(&lcp);
        let method = world.contact_solve(&lcp);
        let exact = match method.method {
            ContactMethod::Jacobi => lcp.solve_jacobi(f64::from(method.step), iterations),
            ContactMethod::Nesterov => lcp.solve_nesterov(f64::from(method.step), iterations),
            ContactMethod::GaussSeidel => lcp.solve_gauss_seidel(iterations),
            ContactMethod::Soft => {
                let s = world.settings;
                lcp.solve_soft(s.dt, s.gravity, iterations, s.max_correction)
                    .velocity
            }
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
        print_parts(&parts);
    }
    Ok(())
}

/// How the GPU's contacts `found` compare with the float64 ones `exact` of the same bodies:
/// whether the same pairs touch in the same order, and each GPU point's distance to the nearest
/// float64 point of its pair (tests/contacts.rs holds them to 2e-5 m but where float64 chose
/// between near equals).
fn contact_gap(found: &[Contact], exact: &[Contact]) -> String {
    let key = |c: &Contact| {
        (
            c.a.min(c.b.unwrap_or(c.a)),
            c.a.max(c.b.unwrap_or(c.a)),
            c.b.is_none(),
        )
    };
    if found.len() != exact.len() || found.iter().zip(exact).any(|(f, e)| key(f) != key(e)) {
        return format!(
            "{} contacts against float64's {}, not the same pairs in turn",
            found.len(),
            exact.len()
        );
    }
    let mut by_pair: std::collections::HashMap<_, Vec<&Contact>> = Default::default();
    exact
        .iter()
        .for_each(|e| by_pair.entry(key(e)).or_default().push(e));
    let gaps: Vec<f64> = found
        .iter()
        .map(|f| {
            by_pair[&key(f)]
                .iter()
                .map(|e| (f.point - e.point).length().max((f.depth - e.depth).abs()))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let apart = gaps.iter().filter(|&&g| g > 2e-5).count();
    let worst = gaps.iter().copied().fold(0.0, f64::max);
    format!(
        "{} contacts, the same pairs in the same order as float64; {apart} points more than 2e-5 m from float64's nearest of the pair (worst {worst:.1e} m)",
        found.len()
    )
}

/// The medians of each part of the timed frames (`FrameTimes`), and the largest K and
/// megabytes uploaded of any of them.
fn print_parts(parts: &[FrameTimes]) {
    let of = |part: fn(&FrameTimes) -> f64| median(parts.iter().map(part).collect());
    let count = parts.iter().map(|t| t.count).max().unwrap_or(0);
    let bytes = parts.iter().map(|t| t.bytes).max().unwrap_or(0);
    println!(
        "{:24} CPU part {:8.3} ms: contacts {:.3}, assembly {:.3}, step {:.3}, layout {:.3}, end {:.3}; upload {:.3} ms, solve and read-back {:.3} ms; K {}, {:.1} MB uploaded (medians; K and MB: the most of any frame)",
        "",
        of(FrameTimes::cpu),
        of(|t| t.contacts),
        of(|t| t.assembly),
        of(|t| t.step),
        of(|t| t.layout),
        of(|t| t.end),
        of(|t| t.upload),
        of(|t| t.solve),
        count,
        bytes as f64 / 1e6,
    );
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
