//! The simulation loop: gravity, contacts, the LCP, impulses, integration.
//!
//! A frame is split in two so that the LCP can be solved anywhere in between (the GPU in the
//! browser, float64 on the CPU in native tests and for verification):
//! [`World::begin_frame`] returns the frame's [`ContactLcp`], [`World::end_frame`] applies its
//! solution.

use std::cell::RefCell;

use glam::DVec3;

use super::body::{Body, Shape};
use super::contact::{find_contacts, Contact};
use super::gpu_contacts::NarrowPhase;
use super::lcp::{body_islands, ContactLcp, IslandLambda, Mode};
use super::soft::SOFT_SUBSTEPS;
use crate::error::{Error, Result};
use crate::order::distinct;
use crate::solver::{ContactMethod, ContactSolve};

/// Simulation settings; every one can change between frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// How the contact LCP is solved each frame: projected Jacobi with the relaxation `omega`
    /// (the seed's solver), or the accelerated solver, its step -1 / lambda_max(D A) estimated
    /// each frame ([`ContactLcp::solve_nesterov`]).
    pub method: ContactMethod,
    /// Time step, s (one frame).
    pub dt: f64,
    /// Gravity along -y, m/s^2.
    pub gravity: f64,
    /// Coulomb friction coefficient between all surfaces.
    pub friction: f64,
    /// Projected Jacobi relaxation, seed convention x + omega D (Ax + b): negative, -0.1 there
    /// (the accelerated solver chooses its own step).
    pub omega: f64,
    /// Iterations per frame; `None` is the solver's default: 2n for projected Jacobi as in the
    /// seed (see [`ContactLcp::default_iterations`]), [`NESTEROV_ITERATIONS`] for the
    /// accelerated solver.
    pub iterations: Option<usize>,
    /// Dense or block layout on the GPU.
    pub mode: Mode,
    /// Bodies closer than this get (speculative) contacts, m.
    pub margin: f64,
    /// Penetration left uncorrected, m; `None` is the solver's own ([`Settings::correction`]).
    pub slop: Option<f64>,
    /// Fraction of the remaining penetration corrected per step (Baumgarte); `None` is the
    /// solver's own ([`Settings::correction`]).
    pub baumgarte: Option<f64>,
    /// Largest correction velocity, m/s.
    pub max_correction: f64,
    /// Islands at rest fall asleep (`SLEEP_SPEED`, `SLEEP_AFTER`): neither solved nor
    /// moved until an awake body touches them.
    pub sleeping: bool,
    /// Where the GPU frame ([`super::gpu_frame`]) finds its contacts.
    pub narrow_phase: NarrowPhase,
}

/// The most negative relaxation the wall takes. Measured in float64 with 200 iterations, both
/// layouts: the standing wall holds at -0.22 and flies apart at -0.25; with a thrown ball it
/// holds at -0.18 and diverges at -0.2 (projected Jacobi converges only for
/// omega > -2 / lambda_max(D A), and contacts with the ball raise lambda_max).
pub const MIN_OMEGA: f64 = -0.18;

/// Most iterations a frame may ask for: eight times the seed's 2n for the standing wall (2520).
pub const MAX_ITERATIONS: usize = 20_000;

/// The accelerated solver's iterations per frame. Measured in float64, the undisturbed wall
/// over 30 s, seeds 1 to 3, with its correction ([`Settings::correction`]): at 80 iterations
/// it is at rest (0.069-0.070% drift and 0.014% penetration for seeds 1 and 2 since
/// [`super::FACE_TIE`], 0.079-0.098% and 0.020% before; 0.01 mm/s after 2 s, energy below its
/// start; the same over 2 minutes); at 50, correcting less, it drifts 0.17%.
pub const NESTEROV_ITERATIONS: usize = 80;

/// Graph-coloured Gauss-Seidel's sweeps per frame: as many as Rapier's solver iterations. The
/// standing wall does not stand at this cost (in float64 it collapses within 5 s; 100 sweeps
/// hold it to about 1% drift in 30 s: docs/wall.md), which is why the accelerated solver stays
/// the default.
pub const GAUSS_SEIDEL_ITERATIONS: usize = 4;

/// A body is still while every point of it moves slower than this, m/s.
pub const SLEEP_SPEED: f64 = 0.005;

/// An island falls asleep once each of its bodies has been still this long, s. The wall at
/// the defaults is still (under 1 mm/s) 2 s after the start.
pub const SLEEP_AFTER: f64 = 1.0;

impl Default for Settings {
    /// texla's wall: the accelerated solver, 80 iterations, the block layout, sleeping
    /// islands.
    fn default() -> Self {
        Settings {
            method: ContactMethod::Nesterov,
            dt: 1.0 / 60.0,
            gravity: 9.81,
            friction: 0.6,
            omega: -0.1,
            iterations: None,
            mode: Mode::Blocks,
            margin: 0.005,
            slop: None,
            baumgarte: None,
            max_correction: 0.5,
            sleeping: true,
            narrow_phase: NarrowPhase::Auto,
        }
    }
}

impl Settings {
    /// The seed's wall: projected Jacobi, omega = -0.1, 2n iterations, the dense layout, no
    /// sleeping.
    pub fn seed() -> Self {
        Settings {
            method: ContactMethod::Jacobi,
            omega: -0.1,
            iterations: None,
            mode: Mode::Dense,
            sleeping: false,
            ..Settings::default()
        }
    }

    /// The penetration left uncorrected (m) and the fraction of the rest corrected a step:
    /// the settings', else the solver's own, measured on the undisturbed wall over 30 s in
    /// float64 (seeds 1 to 3). The accelerated solver leaves none: 0.5 mm of slop let each of
    /// the six rows sink into it (0.69% drift at 80 iterations). At 80 iterations or more it
    /// corrects 35% a step, and the wall stands within 0.1% of the edge (0.069-0.070% drift,
    /// 0.014% penetration, 0.01 mm/s; from 50% it shakes itself apart); with fewer it corrects
    /// 20% (at 50 iterations 0.17% drift, at rest, where 35% shakes the wall apart). Projected
    /// Jacobi and Gauss-Seidel keep 0.5 mm and 20% (Gauss-Seidel at 100 sweeps: 1.0% drift,
    /// 7% with the accelerated solver's correction).
    pub fn correction(&self) -> (f64, f64) {
        let many = self.iterations.is_none_or(|k| k >= NESTEROV_ITERATIONS);
        let (slop, baumgarte) = match self.method {
            ContactMethod::Nesterov if many => (0.0, 0.35),
            ContactMethod::Nesterov => (0.0, 0.2),
            ContactMethod::Jacobi | ContactMethod::GaussSeidel => (0.0005, 0.2),
            ContactMethod::Soft => (0.0, 0.0),
        };
        (
            self.slop.unwrap_or(slop),
            self.baumgarte.unwrap_or(baumgarte),
        )
    }
}

/// What the last frame did, for the stats overlay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Frames simulated since the start.
    pub frame: u64,
    /// Contact points.
    pub contacts: usize,
    /// LCP size of each island, largest first.
    pub islands: Vec<usize>,
    /// Iterations run.
    pub iterations: usize,
    /// Complementarity residual of the applied impulses, float64, m/s; NaN for the soft step,
    /// which answers no one LCP.
    pub residual: f64,
    /// Deepest penetration among the contacts, m.
    pub penetration: f64,
    /// The step or relaxation the solver used (negative, seed convention).
    pub step: f64,
    /// Bodies asleep after the frame.
    pub asleep: usize,
}

/// What was done to a world from outside since it was built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Balls thrown (one flies at a time: each throw replaces the last ball).
    pub throws: u64,
    /// Pushes that hit a cube.
    pub pushes: u64,
}

/// A contact remembered for the next frame's warm start.
#[derive(Debug, Clone, Copy)]
struct Remembered {
    /// Its bodies: a, and b or the ground.
    pair: (usize, Option<usize>),
    /// The contact point in body a's frame.
    local: DVec3,
    /// The impulse it received, world axes, N s.
    impulse: DVec3,
}

/// Bodies, settings and the state that lives from frame to frame.
#[derive(Debug, Clone)]
pub struct World {
    /// The bodies; the ball, when thrown, is the last one.
    pub bodies: Vec<Body>,
    /// The settings.
    pub settings: Settings,
    /// Statistics of the last frame.
    pub stats: Stats,
    /// Energy present at the start plus every joule put in since (throws and pushes), J.
    energy_in: f64,
    /// Balls thrown and cubes pushed since the start.
    inputs: Inputs,
    /// Last frame's contacts and those of the sleeping islands.
    remembered: Memory,
    /// The accelerated solver's estimates of lambda_max(DA), island by island in the order of
    /// their names, each with the span of frames it serves in ([`World::lambda_max`]).
    lambdas: RefCell<Vec<(IslandLambda, u64)>>,
}

/// Frames an island's estimate of lambda_max(DA) serves while its contacts join the same
/// bodies: the Lanczos steps of a 6000-cube frame take 12.8 ms of its 45 ms on the CPU
/// natively on the H100 (`bench/records/h100/wall/standing-native-walls-100-2026-11-26.log`),
/// and a standing wall's matrix barely moves.
const LAMBDA_FRAMES: u64 = 60;

/// Remembered contacts grouped by their body a, each body's in the order they were
/// remembered: a contact's candidates are one short run, found without a search.
#[derive(Debug, Clone, Default)]
struct Memory {
    contacts: Vec<Remembered>,
    /// Body a's contacts are contacts[first[a] .. first[a + 1]] (bodies past the end have
    /// none).
    first: Vec<usize>,
}

impl Memory {
    /// The contacts remembered with body a.
    fn of(&self, a: usize) -> &[Remembered] {
        match (self.first.get(a), self.first.get(a + 1)) {
            (Some(&start), Some(&end)) => &self.contacts[start..end],
            _ => &[],
        }
    }

    /// Groups `contacts` by body a (a counting sort: stable, one pass) among `bodies` bodies.
    fn group(&mut self, contacts: Vec<Remembered>, bodies: usize) {
        let mut first = vec![0; bodies + 1];
        for r in &contacts {
            first[r.pair.0 + 1] += 1;
        }
        for k in 0..bodies {
            first[k + 1] += first[k];
        }
        let mut next = first.clone();
        let mut grouped = contacts.clone(); // every slot is overwritten below
        for r in contacts {
            grouped[next[r.pair.0]] = r;
            next[r.pair.0] += 1;
        }
        *self = Memory {
            contacts: grouped,
            first,
        };
    }
}

/// A remembered contact matches a new one of the same bodies within this distance, m.
const MATCH_DISTANCE: f64 = 0.05;

impl World {
    /// A world of `bodies` at rest.
    pub fn new(bodies: Vec<Body>, settings: Settings) -> Self {
        let mut world = World {
            bodies,
            settings,
            stats: Stats::default(),
            energy_in: 0.0,
            inputs: Inputs::default(),
            remembered: Memory::default(),
            lambdas: RefCell::default(),
        };
        world.energy_in = world.energy();
        world
    }

    /// Total kinetic and potential energy, J.
    pub fn energy(&self) -> f64 {
        let g = self.settings.gravity;
        self.bodies.iter().map(|b| b.energy(g)).sum()
    }

    /// The energy at the start plus all energy put in since, J: the most the world may hold.
    pub fn energy_in(&self) -> f64 {
        self.energy_in
    }

    /// Balls thrown and cubes pushed since the start.
    pub fn inputs(&self) -> Inputs {
        self.inputs
    }

    /// Throws the ball (radius `radius` m, `mass` kg) from `from` at `velocity` m/s,
    /// replacing an earlier ball.
    pub fn throw_ball(&mut self, from: DVec3, velocity: DVec3, radius: f64, mass: f64) {
        self.inputs.throws += 1;
        if let Some(k) = self.ball_index() {
            self.energy_in -= self.bodies[k].energy(self.settings.gravity);
            self.bodies.remove(k);
            self.remembered = Memory::default();
        }
        let ball = Body::ball(from, radius, mass, velocity);
        self.energy_in += ball.energy(self.settings.gravity);
        self.bodies.push(ball);
    }

    /// Index of the ball, if one was thrown.
    pub fn ball_index(&self) -> Option<usize> {
        self.bodies
            .iter()
            .position(|b| matches!(b.shape, Shape::Ball { .. }))
    }

    /// The first cube hit by the ray `origin + t dir` (`dir` a unit vector) and its t, m.
    pub fn ray_hit(&self, origin: DVec3, dir: DVec3) -> Option<(usize, f64)> {
        self.bodies
            .iter()
            .enumerate()
            .filter_map(|(k, b)| ray_cube(b, origin, dir).map(|t| (k, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Pushes the first cube hit by the ray `origin + t dir` with `impulse` N s along the ray,
    /// at the hit point. Returns the cube's index, or `None` when the ray hits nothing.
    pub fn push(&mut self, origin: DVec3, dir: DVec3, impulse: f64) -> Option<usize> {
        let dir = dir.normalize();
        let (k, t) = self.ray_hit(origin, dir)?;
        if let Some(island) = self.bodies[k].asleep {
            self.wake_island(island);
        }
        let before = self.bodies[k].energy(self.settings.gravity);
        self.bodies[k].apply_impulse(dir * impulse, origin + dir * t);
        self.energy_in += self.bodies[k].energy(self.settings.gravity) - before;
        self.inputs.pushes += 1;
        Some(k)
    }

    /// First half of a frame: contacts, gravity on the velocities, and their LCP (warm
    /// started from the last frame's impulses). Sleeping islands that an awake body touches
    /// wake; the others have no contacts in the LCP and feel no gravity.
    pub fn begin_frame(&mut self) -> ContactLcp {
        let contacts = self.contacts();
        self.lcp(contacts)
    }

    /// The contacts of a frame (the first part of [`Self::begin_frame`]): sleeping islands
    /// that an awake body touches wake, then gravity acts on the awake bodies' velocities.
    pub fn contacts(&mut self) -> Vec<Contact> {
        let s = self.settings;
        self.wake_unless_sleeping();
        let contacts = loop {
            let contacts = find_contacts(&self.bodies, s.margin, s.dt);
            if !self.wake_touched(&contacts) {
                break contacts;
            }
        };
        self.fall();
        contacts
    }

    /// Wakes every body where sleeping is off: [`Self::contacts`]' start.
    pub(super) fn wake_unless_sleeping(&mut self) {
        if !self.settings.sleeping {
            self.bodies.iter_mut().for_each(Body::wake);
        }
    }

    /// Wakes the sleeping islands that `contacts` (found with margins from the velocities the
    /// bodies had, before this step's gravity) touch from an awake body; whether any woke, so
    /// that the woken bodies' contacts with each other, skipped, are looked for again.
    pub(super) fn wake_touched(&mut self, contacts: &[Contact]) -> bool {
        let touched = distinct(contacts.iter().filter_map(|c| {
            match (self.bodies[c.a].asleep, self.bodies[c.b?].asleep) {
                (Some(island), None) | (None, Some(island)) => Some(island),
                _ => None,
            }
        }));
        let woke = !touched.is_empty();
        touched
            .into_iter()
            .for_each(|island| self.wake_island(island));
        woke
    }

    /// This step's gravity on the awake bodies' velocities: [`Self::contacts`]' end.
    pub(super) fn fall(&mut self) {
        let s = self.settings;
        for b in self.bodies.iter_mut().filter(|b| b.asleep.is_none()) {
            b.velocity.y -= s.gravity * s.dt;
        }
    }

    /// The LCP of this frame's `contacts` (the second part of [`Self::begin_frame`]), warm
    /// started from the last frame's impulses.
    pub fn lcp(&self, contacts: Vec<Contact>) -> ContactLcp {
        let s = self.settings;
        let (slop, baumgarte) = s.correction();
        let x0 = contacts.iter().map(|c| self.warm_start(c)).collect();
        let target = |c: &Contact| {
            if s.method == ContactMethod::Soft {
                // The soft step corrects from the separation itself: b is the velocity.
                0.0
            } else if c.depth < 0.0 {
                // Still apart: the bodies may close the gap within this step, no faster.
                c.depth / s.dt
            } else {
                (baumgarte * (c.depth - slop).max(0.0) / s.dt).min(s.max_correction)
            }
        };
        let mut lcp = ContactLcp::assemble(&self.bodies, contacts, target, s.friction, x0);
        lcp.x0 = lcp.x0.iter().map(|x| lcp.project(*x)).collect();
        lcp
    }

    /// Iterations this frame runs for `lcp`: the setting, or the solver's default.
    pub fn iterations(&self, lcp: &ContactLcp) -> usize {
        self.settings
            .iterations
            .unwrap_or_else(|| match self.settings.method {
                ContactMethod::Jacobi => lcp.default_iterations(self.settings.mode),
                ContactMethod::Nesterov => NESTEROV_ITERATIONS,
                ContactMethod::GaussSeidel => GAUSS_SEIDEL_ITERATIONS,
                ContactMethod::Soft => SOFT_SUBSTEPS,
            })
    }

    /// How this frame solves `lcp`: the method, with omega or the step chosen for `lcp`, and
    /// the iterations, the fastest way the GPU has.
    pub fn contact_solve(&self, lcp: &ContactLcp) -> ContactSolve {
        self.contact_solve_with(lcp, self.settings.method, self.iterations(lcp))
    }

    /// How `method` solves `lcp` in `iterations`, with this world's omega for projected Jacobi
    /// and the step chosen for `lcp` for the accelerated solver: the frame's solve by another
    /// solver (the LCP lesson compares them on one frame).
    pub fn contact_solve_with(
        &self,
        lcp: &ContactLcp,
        method: ContactMethod,
        iterations: usize,
    ) -> ContactSolve {
        match method {
            ContactMethod::Jacobi => ContactSolve::jacobi(self.settings.omega as f32, iterations),
            ContactMethod::Nesterov => {
                let step = (-1.0 / self.lambda_max(lcp)) as f32;
                ContactSolve::nesterov(step, lcp.mu as f32, iterations)
            }
            ContactMethod::GaussSeidel => ContactSolve::gauss_seidel(lcp.mu as f32, iterations),
            ContactMethod::Soft => ContactSolve::soft(lcp.mu as f32, iterations),
        }
    }

    /// lambda_max(DA) of `lcp` ([`ContactLcp::lambda_max`]), the largest of its islands':
    /// each island's last estimate while its contacts join the same pairs of bodies, for
    /// [`LAMBDA_FRAMES`] frames at most, else a new one. Each island's span of frames starts
    /// at its own frame, so that a thousand walls do not renew their estimates all at once.
    fn lambda_max(&self, lcp: &ContactLcp) -> f64 {
        let frame = self.stats.frame;
        let span = |island: usize| (frame + island as u64) / LAMBDA_FRAMES;
        let kept = self.lambdas.take();
        let lambdas = lcp.island_lambdas(|island, pairs| {
            let k = kept.binary_search_by_key(&island, |(l, _)| l.island).ok()?;
            let (old, made) = kept[k];
            (old.pairs == pairs && made == span(island)).then_some(old.value)
        });
        let largest = lambdas.iter().map(|l| l.value).fold(0.0, f64::max);
        self.lambdas
            .replace(lambdas.into_iter().map(|l| (l, span(l.island))).collect());
        largest
    }

    /// Second half of a frame: applies the impulses `x` (3 per contact, N s), integrates the
    /// positions, remembers the impulses. Fails, leaving the world as it was before the
    /// integration, if anything became infinite or NaN.
    pub fn end_frame(
        &mut self,
        lcp: &ContactLcp,
        x: &[[f64; 3]],
        iterations_step: (usize, f64),
    ) -> Result<()> {
        self.finish_frame(lcp, x, iterations_step, |bodies, _, dt| {
            for b in bodies.iter_mut().filter(|b| b.asleep.is_none()) {
                b.integrate(dt);
            }
        })
    }

    /// [`Self::end_frame`] with the positions moved as the soft step moves them
    /// ([`super::SoftImpulses`]): by the velocities the frame started with, less the gravity
    /// of the `substeps` to come, and by the impulses `moved` (N s^2 per contact), instead of
    /// by the velocities after the impulses `x`.
    pub fn end_frame_moved(
        &mut self,
        lcp: &ContactLcp,
        x: &[[f64; 3]],
        (moved, substeps): (&[[f64; 3]], usize),
        iterations_step: (usize, f64),
    ) -> Result<()> {
        let n = substeps.max(1) as f64;
        let late = self.settings.gravity * self.settings.dt * (n - 1.0) / (2.0 * n);
        self.finish_frame(lcp, x, iterations_step, |bodies, before, dt| {
            let mut movers = before.to_vec();
            for b in &mut movers {
                b.velocity.y += late;
            }
            for ((c, dirs), p) in lcp.contacts.iter().zip(&lcp.directions).zip(moved) {
                let j = (dirs[0] * p[0] + dirs[1] * p[1] + dirs[2] * p[2]) / dt;
                movers[c.a].apply_impulse_turned(j, c.point, lcp.jacobian.inverse(c.a).1);
                if let Some(b) = c.b {
                    movers[b].apply_impulse_turned(-j, c.point, lcp.jacobian.inverse(b).1);
                }
            }
            for (b, mover) in bodies.iter_mut().zip(&mut movers) {
                if b.asleep.is_none() {
                    mover.integrate(dt);
                    (b.position, b.orientation) = (mover.position, mover.orientation);
                }
            }
        })
    }

    /// The second half of a frame, the positions moved by `integrate(bodies, before, dt)`
    /// (`before`: the bodies before the impulses).
    fn finish_frame(
        &mut self,
        lcp: &ContactLcp,
        x: &[[f64; 3]],
        (iterations, step): (usize, f64),
        integrate: impl FnOnce(&mut [Body], &[Body], f64),
    ) -> Result<()> {
        if x.len() != lcp.contacts.len() || x.iter().flatten().any(|v| !v.is_finite()) {
            return Err(Error::Simulation(format!(
                "frame {}: the solver returned {} impulses for {} contacts, or non-finite ones",
                self.stats.frame,
                x.len(),
                lcp.contacts.len()
            )));
        }
        let before = self.bodies.clone();
        // Sleeping contacts keep their impulses for when their island wakes.
        let bodies = &self.bodies;
        let asleep = |k: usize| bodies[k].asleep.is_some();
        let mut remembered = std::mem::take(&mut self.remembered.contacts);
        remembered.retain(|r| asleep(r.pair.0) && r.pair.1.is_none_or(asleep));
        for ((c, dirs), x) in lcp.contacts.iter().zip(&lcp.directions).zip(x) {
            let j = dirs[0] * x[0] + dirs[1] * x[1] + dirs[2] * x[2];
            // The LCP's inverse inertia: the bodies have not turned since it was assembled.
            self.bodies[c.a].apply_impulse_turned(j, c.point, lcp.jacobian.inverse(c.a).1);
            if let Some(b) = c.b {
                self.bodies[b].apply_impulse_turned(-j, c.point, lcp.jacobian.inverse(b).1);
            }
            let a = &self.bodies[c.a];
            remembered.push(Remembered {
                pair: (c.a, c.b),
                local: a.orientation.inverse() * (c.point - a.position),
                impulse: j,
            });
        }
        self.remembered.group(remembered, self.bodies.len());
        integrate(&mut self.bodies, &before, self.settings.dt);
        if let Some(k) = self.bodies.iter().position(|b| !b.is_finite()) {
            self.bodies = before;
            return Err(Error::Simulation(format!(
                "frame {}: body {k} is no longer finite; the simulation stopped",
                self.stats.frame
            )));
        }
        self.stats = Stats {
            frame: self.stats.frame + 1,
            contacts: lcp.contacts.len(),
            islands: lcp.island_sizes(),
            iterations,
            // The soft step answers no one LCP (its bodies move within the frame): no residual,
            // and none of its cost (a product through J, a tenth of the CPU's frame).
            residual: match self.settings.method {
                ContactMethod::Soft => f64::NAN,
                _ => lcp.residual(x),
            },
            penetration: lcp.contacts.iter().map(|c| c.depth).fold(0.0, f64::max),
            step,
            asleep: 0,
        };
        if self.settings.sleeping {
            self.fall_asleep(&lcp.contacts);
        }
        self.stats.asleep = self.bodies.iter().filter(|b| b.asleep.is_some()).count();
        Ok(())
    }

    /// Counts how long each awake body has been still and puts to sleep, at rest, every island
    /// (connected through this frame's `contacts`) whose bodies have all been still for
    /// [`SLEEP_AFTER`] seconds. An island is named by its smallest body index: a body awake
    /// now, so no sleeping island has the name.
    fn fall_asleep(&mut self, contacts: &[Contact]) {
        let dt = self.settings.dt;
        for b in self.bodies.iter_mut().filter(|b| b.asleep.is_none()) {
            b.still = if b.fastest_point() < SLEEP_SPEED {
                b.still + dt
            } else {
                0.0
            };
        }
        let island = body_islands(self.bodies.len(), contacts);
        let mut restless = vec![false; self.bodies.len()];
        for (b, &i) in self.bodies.iter().zip(&island) {
            restless[i] |= b.asleep.is_none() && b.still < SLEEP_AFTER;
        }
        for (b, &i) in self.bodies.iter_mut().zip(&island) {
            if b.asleep.is_none() && !restless[i] {
                b.asleep = Some(i);
                (b.velocity, b.spin) = (DVec3::ZERO, DVec3::ZERO);
            }
        }
    }

    /// Wakes every body of the sleeping island `island`.
    fn wake_island(&mut self, island: usize) {
        for b in &mut self.bodies {
            if b.asleep == Some(island) {
                b.wake();
            }
        }
    }

    /// One frame with the LCP solved in float64 on the CPU by the GPU's algorithm (native
    /// tests).
    pub fn step_cpu(&mut self) -> Result<()> {
        let lcp = self.begin_frame();
        let iterations = self.iterations(&lcp);
        let (x, step) = match self.settings.method {
            _ if lcp.contacts.is_empty() => (Vec::new(), 0.0),
            ContactMethod::Jacobi => {
                let omega = self.settings.omega;
                (lcp.solve_jacobi(omega, iterations), omega)
            }
            ContactMethod::Nesterov => {
                let step = f64::from(self.contact_solve(&lcp).step);
                (lcp.solve_nesterov(step, iterations), step)
            }
            ContactMethod::GaussSeidel => (lcp.solve_gauss_seidel(iterations), 0.0),
            ContactMethod::Soft => {
                let s = self.settings;
                let soft = lcp.solve_soft(s.dt, s.gravity, iterations, s.max_correction);
                let moved = (&soft.position[..], iterations);
                return self.end_frame_moved(&lcp, &soft.velocity, moved, (iterations, 0.0));
            }
        };
        self.end_frame(&lcp, &x, (iterations, step))
    }

    /// Last frame's impulse of the same contact, in the new contact's directions.
    fn warm_start(&self, c: &Contact) -> [f64; 3] {
        let a = &self.bodies[c.a];
        let local = a.orientation.inverse() * (c.point - a.position);
        let Some(old) = self
            .remembered
            .of(c.a)
            .iter()
            .filter(|r| r.pair.1 == c.b)
            .map(|r| (r, r.local.distance(local)))
            .filter(|(_, d)| *d < MATCH_DISTANCE)
            .min_by(|a, b| a.1.total_cmp(&b.1))
        else {
            return [0.0; 3];
        };
        let (t1, t2) = super::lcp::tangents(c.normal);
        [c.normal, t1, t2].map(|e| old.0.impulse.dot(e))
    }
}

/// Distance along the ray (unit `dir`) to the cube's surface, if it hits.
fn ray_cube(body: &Body, origin: DVec3, dir: DVec3) -> Option<f64> {
    let Shape::Cube { half } = body.shape else {
        return None;
    };
    let r = body.rotation().transpose();
    let (o, d) = (r * (origin - body.position), r * dir);
    let (mut near, mut far) = (f64::NEG_INFINITY, f64::INFINITY);
    for k in 0..3 {
        if d[k].abs() < 1e-12 {
            if o[k].abs() > half {
                return None;
            }
            continue;
        }
        let (t0, t1) = ((-half - o[k]) / d[k], (half - o[k]) / d[k]);
        near = near.max(t0.min(t1));
        far = far.min(t0.max(t1));
    }
    (near <= far && far >= 0.0).then_some(near.max(0.0))
}
