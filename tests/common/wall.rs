//! The wall tests' shared scenes and measures (`tests/wall.rs`, `tests/wall_wrap.rs`).

use texla::physics::{wall, ContactLcp, Mode, Settings, WallSpec, World, BALL};
use texla::solver::ContactLayout;

/// Iterations per frame in these tests (the default 2n is 2520 for the standing wall: too
/// many passes for a CPU-emulated GPU in a test).
pub const ITERATIONS: usize = 100;

pub fn settings(mode: Mode) -> Settings {
    Settings {
        iterations: Some(ITERATIONS),
        mode,
        ..Settings::default()
    }
}

pub fn standing(mode: Mode) -> World {
    World::new(wall(&WallSpec::default()), settings(mode))
}

/// The page's ball ([`BALL`], 25 m/s) thrown head-on into the middle of row 4: the throw that
/// must bring the top row down.
pub fn knock(world: &mut World) {
    head_on(world, BALL);
}

/// A slower throw for busy frames: the same ball at 15 m/s (the tolerances of the tests that use
/// it were measured with it).
pub fn throw(world: &mut World) {
    let (radius, mass, _) = BALL;
    head_on(world, (radius, mass, 15.0));
}

/// A ball of (radius m, mass kg, speed m/s) thrown along +z into the middle of row 4.
fn head_on(world: &mut World, (radius, mass, speed): (f64, f64, f64)) {
    world.throw_ball(
        glam::DVec3::new(0.0, 2.0, -1.2),
        glam::DVec3::new(0.0, 0.0, speed),
        radius,
        mass,
    );
}

/// A frame's LCP some frames after a throw, when contacts are many and varied.
pub fn busy_lcp() -> ContactLcp {
    busy_layout().0
}

/// [`busy_lcp`] and its block layout with the matrix's factors (what the single-dispatch
/// solver reads).
pub fn busy_layout() -> (ContactLcp, ContactLayout) {
    let mut world = standing(Mode::Blocks);
    throw(&mut world);
    for _ in 0..12 {
        world.step_cpu().unwrap();
    }
    let lcp = world.begin_frame();
    let mut layout = lcp.gpu_layout(Mode::Blocks);
    layout.factors = Some(lcp.factors());
    (lcp, layout)
}

pub fn now() -> f64 {
    js_sys::Date::now()
}

/// Largest distance between the same body in two worlds, m.
pub fn largest_gap(a: &World, b: &World) -> f64 {
    a.bodies
        .iter()
        .zip(&b.bodies)
        .map(|(p, q)| p.position.distance(q.position))
        .fold(0.0f64, f64::max)
}

/// A tile limit that wraps one wall's contacts into two segments: the busy frame's 463
/// contacts of at most 176 texel columns each (44 neighbours) take 232 rows and 352 columns,
/// the standing wall's 420 of 112 take 210 and 224.
pub const WRAPPING_LIMIT: usize = 384;

/// Largest |a - b| over the three impulses of every contact (4 values per contact).
pub fn largest_difference(a: &[f64], exact: &[[f64; 3]]) -> f64 {
    exact
        .iter()
        .enumerate()
        .flat_map(|(i, e)| (0..3).map(move |r| (a[4 * i + r] - e[r]).abs()))
        .fold(0.0f64, f64::max)
}
