//! The scene of the ShaderX2 article's Figure 4: a wall of 60 cubes on the ground.

use glam::DVec3;

use super::body::Body;
use crate::reference::Rng;

/// The wall's dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallSpec {
    /// Cubes per row.
    pub length: usize,
    /// Rows.
    pub height: usize,
    /// Cube edge, m.
    pub edge: f64,
    /// Cube mass, kg.
    pub mass: f64,
    /// Gap between neighbours in a row, as a fraction of the edge: wider than the contact
    /// margin, so cubes side by side do not touch until something moves them.
    pub gap: f64,
    /// Colour variation and sub-millimetre placement jitter come from this seed.
    pub seed: u32,
    /// Walls one behind the other, [`WALL_SPACING`] apart along z (1, 10 or 100 for the
    /// benchmarks: 60, 600 or 6000 cubes); past [`WALLS_DEEP`], columns of that many side by
    /// side along x (1,000 walls: 10 columns, 60,000 cubes).
    pub walls: usize,
}

/// The ball the page throws and the knock-down tests throw head-on into the middle of row 4:
/// radius m, mass kg, speed m/s. At 15 m/s (before) the hit left one or more top-row cubes
/// standing on a stub of the wall in 24 to 29 of 54 throws (float64, wall seeds 1 to 6, aims
/// 10 cm apart across the middle 0.8 m; either step estimate): whether the outer cubes fell
/// was luck. At 25 m/s one of the 54 did (22 and 27 m/s: none). README, The collapsing wall.
pub const BALL: (f64, f64, f64) = (0.5, 100.0, 25.0);

/// Walls one column holds, one behind the other along z; more walls make more columns.
pub const WALLS_DEEP: usize = 100;

/// Distance between the centres of neighbouring walls, in edges: walls far enough apart that
/// they share no contact until one falls onto the next.
pub const WALL_SPACING: f64 = 4.0;

impl Default for WallSpec {
    fn default() -> Self {
        WallSpec {
            length: 10,
            height: 6,
            edge: 0.5,
            mass: 10.0,
            gap: 0.02,
            seed: 1,
            walls: 1,
        }
    }
}

/// The wall along x, centred on x = 0, z = 0, in running bond: odd rows are shifted by a
/// quarter edge so that every cube above the first row rests on two below (the end cubes
/// still have three quarters of their base supported). With `walls` > 1, that many such walls
/// one behind the other along z, centred on z = 0, cubes wall after wall; past
/// [`WALLS_DEEP`] walls, columns of them side by side along x, [`WALL_SPACING`] edges apart
/// (the scene centred on x = 0).
pub fn wall(spec: &WallSpec) -> Vec<Body> {
    let mut rng = Rng::new(spec.seed);
    let pitch = spec.edge * (1.0 + spec.gap);
    let width = pitch * spec.length as f64;
    let mut bodies = Vec::with_capacity(spec.length * spec.height * spec.walls);
    let deep = spec.walls.min(WALLS_DEEP);
    let columns = spec.walls.div_ceil(WALLS_DEEP);
    for w in 0..spec.walls {
        let z = ((w % deep) as f64 - 0.5 * (deep as f64 - 1.0)) * WALL_SPACING * spec.edge;
        let column = (w / deep) as f64 - 0.5 * (columns as f64 - 1.0);
        let x = column * (width + WALL_SPACING * spec.edge);
        let start = bodies.len();
        one_wall(spec, z, pitch, width, &mut rng, &mut bodies);
        for b in &mut bodies[start..] {
            b.position.x += x;
        }
    }
    bodies
}

/// The extent of `walls` walls of the default [`WallSpec`] on the ground, m: (along x, along
/// z), what the camera takes in.
pub fn walls_extent(walls: usize) -> (f64, f64) {
    let spec = WallSpec::default();
    let width = spec.edge * (1.0 + spec.gap) * spec.length as f64;
    let (deep, columns) = (
        walls.clamp(1, WALLS_DEEP),
        walls.max(1).div_ceil(WALLS_DEEP),
    );
    let spacing = WALL_SPACING * spec.edge;
    (
        columns as f64 * width + (columns - 1) as f64 * spacing,
        (deep - 1) as f64 * spacing,
    )
}

/// One wall of `spec` at depth `z`.
fn one_wall(
    spec: &WallSpec,
    z: f64,
    pitch: f64,
    width: f64,
    rng: &mut Rng,
    bodies: &mut Vec<Body>,
) {
    for row in 0..spec.height {
        let shift = if row % 2 == 1 { 0.25 * spec.edge } else { 0.0 };
        for k in 0..spec.length {
            let jitter = (rng.next_f64() - 0.5) * 1e-3 * spec.edge;
            let x = -0.5 * width + (k as f64 + 0.5) * pitch + shift + jitter;
            let y = spec.edge * (row as f64 + 0.5);
            let tint = 0.85 + 0.15 * rng.next_f64() as f32;
            let color = [0.72 * tint, 0.38 * tint, 0.25 * tint];
            bodies.push(Body::cube(
                DVec3::new(x, y, z),
                0.5 * spec.edge,
                spec.mass,
                color,
            ));
        }
    }
}
