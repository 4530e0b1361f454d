//! `Wall`: the collapsing wall of the ShaderX2 article as JavaScript sees it: stepping (a frame conducted
//! by [`crate::physics::gpu_frame`] on a copy of the world, handed back through
//! [`physics::LiveWorld`] so that a throw, a push or a setting made meanwhile is kept), drawing,
//! the camera, throwing and the live settings.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::options::{finite, object, whole};
use crate::error::Error;
use crate::event_loop::now_ms;
use crate::gpu::Gpu;
use crate::physics;
use crate::solver::ContactMethod;

/// The collapsing wall: a [`physics::World`] whose contact LCP is solved on the GPU every
/// frame, drawn with the same backend.
#[wasm_bindgen]
pub struct Wall {
    gpu: Rc<Gpu>,
    state: Rc<RefCell<WallState>>,
}

struct WallState {
    /// The world, the frame in flight and the inputs made during it.
    live: physics::LiveWorld,
    camera: physics::Camera,
    /// The seed the wall was built from.
    seed: u32,
    /// Walls side by side.
    walls: usize,
    /// Last frame's LCP and the GPU's impulses, for verification.
    last: Option<(physics::ContactLcp, Vec<[f64; 3]>)>,
    /// Where the last frame's milliseconds went.
    parts: physics::FrameTimes,
    frame_ms: f64,
    /// `prepare()`'s frame, once asked for: `step()` waits for it before its clock starts.
    preparing: Option<Promise>,
}

/// How `step()` rejects when `cancel()` or `reset()` abandoned its frame.
const ABANDONED: &str = "the frame was cancelled or the wall reset before it finished";

/// Most unknowns `lcp()` copies out as a dense matrix.
const MAX_CHECKED_UNKNOWNS: usize = 3000;

impl Wall {
    pub(super) fn new(gpu: Rc<Gpu>, seed: u32, walls: usize) -> Self {
        let state = WallState {
            live: physics::LiveWorld::new(Self::world(seed, walls, physics::Settings::default())),
            walls,
            camera: physics::Camera::for_walls(walls),
            seed,
            last: None,
            parts: physics::FrameTimes::default(),
            frame_ms: 0.0,
            preparing: None,
        };
        Wall {
            gpu,
            state: Rc::new(RefCell::new(state)),
        }
    }

    fn world(seed: u32, walls: usize, settings: physics::Settings) -> physics::World {
        let spec = physics::WallSpec {
            seed,
            walls,
            ..Default::default()
        };
        physics::World::new(physics::wall(&spec), settings)
    }
}

#[wasm_bindgen]
impl Wall {
    /// Simulates one frame (1/60 s): contacts, the LCP solved on the GPU, impulses,
    /// integration. Resolves to `stats()`; rejects while another step runs, if the simulation
    /// fails (it then stays at the last good frame) or if `cancel()` abandoned the frame.
    /// The frame steps a copy of the world: a throw, a push or a setting made while it is in
    /// flight shows at once and is applied to its result too, so the next frame starts with it.
    #[wasm_bindgen(unchecked_return_type = "Promise<WallStats>")]
    pub fn step(&self) -> Promise {
        let gpu = self.gpu.clone();
        let state = self.state.clone();
        future_to_promise(async move {
            // Shaders still being built by `prepare()` are waited for first, off the clock.
            let preparing = state.borrow().preparing.clone();
            if let Some(preparing) = preparing {
                let _ = wasm_bindgen_futures::JsFuture::from(preparing).await;
            }
            let (frame, mut world) = state.borrow_mut().live.begin()?;
            let start = now_ms();
            // Asked between the chunks of a long solve: `cancel()` or `reset()` stops it there.
            let current = || state.borrow().live.is_current(frame);
            let result =
                physics::gpu_frame_timed(gpu.as_ref(), &mut world, &now_ms, &current).await;
            let mut s = state.borrow_mut();
            s.live
                .finish(frame, result.is_ok().then_some(world))
                .map_err(|_| Error::Simulation(ABANDONED.into()))?;
            let (lcp, impulses, parts) = result?;
            s.last = Some((lcp, impulses));
            s.parts = parts;
            s.frame_ms = now_ms() - start;
            drop(s);
            Ok(Self::stats_of(&state.borrow()).into())
        })
    }

    /// Builds the shaders of the wall's frames now, by simulating one frame on a copy of the
    /// wall as it stands (its result dropped; the wall does not move): resolves once they are
    /// built. On a CPU-emulated GPU that takes seconds, which a page can spend before its
    /// reader presses Start; `step()` waits for a preparation under way before its frame's clock
    /// starts, so no frame's time counts the shaders' building. Asking again gives the same
    /// promise.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn prepare(&self) -> Promise {
        if let Some(preparing) = &self.state.borrow().preparing {
            return preparing.clone();
        }
        let gpu = self.gpu.clone();
        let mut world = self.state.borrow().live.world().clone();
        let preparing = future_to_promise(async move {
            physics::gpu_frame_timed(gpu.as_ref(), &mut world, &now_ms, &|| true).await?;
            Ok(JsValue::UNDEFINED)
        });
        self.state.borrow_mut().preparing = Some(preparing.clone());
        preparing
    }

    /// Abandons the frame being simulated, if there is one, so that the page need not wait for
    /// a long one (the seed's preset takes seconds a frame on a CPU-emulated GPU): its `step()`
    /// rejects, the wall stays at the last finished frame, and the next `step()` may start at
    /// once (the GPU still finishes the work it was given). Returns whether a frame was
    /// abandoned.
    pub fn cancel(&self) -> bool {
        self.state.borrow_mut().live.cancel()
    }

    /// Back to a standing wall built from `seed` (default: the same one) and `walls` walls one
    /// behind the other (default: as many as now; 1 to 1000), keeping the settings; a new
    /// number of walls also resets the camera to take them in. A frame in flight is abandoned,
    /// as by `cancel()`, and throws or pushes made during it go with the old wall.
    pub fn reset(&self, seed: Option<f64>, walls: Option<f64>) -> Result<(), JsValue> {
        let walls = walls.map(wall_count).transpose()?;
        let seed = seed.map(super::options::seed).transpose()?;
        let mut s = self.state.borrow_mut();
        s.seed = seed.unwrap_or(s.seed);
        if let Some(w) = walls.filter(|&w| w != s.walls) {
            s.walls = w;
            let aspect = s.camera.aspect;
            s.camera = physics::Camera {
                aspect,
                ..physics::Camera::for_walls(w)
            };
        }
        let world = Self::world(s.seed, s.walls, s.live.world().settings);
        s.live.replace(world);
        s.last = None;
        Ok(())
    }

    /// Draws the current frame into `canvas()` (sized by the page) from the orbit camera.
    pub fn draw(&self) -> Result<(), JsValue> {
        let mut s = self.state.borrow_mut();
        let canvas = self.gpu.scene_canvas()?;
        s.camera.aspect = f64::from(canvas.width().max(1)) / f64::from(canvas.height().max(1));
        let scene = s.camera.scene(s.live.world());
        Ok(self.gpu.draw_scene(&scene)?)
    }

    /// The canvas the wall is drawn into, for the page to place and size: the one given to
    /// `Gpgpu.create` as option `canvas`, else one of texla's own (a `<canvas>` element in a
    /// page, an `OffscreenCanvas` in a Worker).
    pub fn canvas(&self) -> Result<crate::global::Canvas, JsValue> {
        Ok(self.gpu.scene_canvas()?)
    }

    /// Turns the camera by `yaw` and `pitch` radians and scales its distance by `zoom`.
    pub fn orbit(&self, yaw: f64, pitch: f64, zoom: f64) -> Result<(), JsValue> {
        finite(&[("yaw", yaw), ("pitch", pitch), ("zoom", zoom)])?;
        if zoom <= 0.0 {
            return Err(Error::Argument(format!("zoom must be above 0, got {zoom}")).into());
        }
        let mut s = self.state.borrow_mut();
        let c = &mut s.camera;
        c.yaw += yaw;
        c.pitch = (c.pitch + pitch).clamp(0.02, 1.5);
        c.distance = (c.distance * zoom).clamp(3.0, 400.0);
        Ok(())
    }

    /// Throws the ball ([`physics::BALL`]: 0.5 m, 100 kg, 25 m/s) from the camera through the
    /// canvas point (x, y), both in -1..1 with y up. It shows at once and the next frame starts
    /// with it, even when thrown while a frame is in flight (`stats().throws` counts it).
    #[wasm_bindgen(js_name = throwBall)]
    pub fn throw_ball(&self, x: f64, y: f64) -> Result<(), JsValue> {
        finite(&[("x", x), ("y", y)])?;
        let mut s = self.state.borrow_mut();
        let (origin, dir) = s.camera.ray(x, y);
        let (radius, mass, speed) = physics::BALL;
        // From 1.5 m before the camera, or from THROW_REACH before what the ray meets (a cube,
        // else the ground) where that is farther: the ball reaches the hundredth wall too.
        let dir = dir.normalize();
        let ground = (dir.y < 0.0).then(|| -origin.y / dir.y);
        let hit = s
            .live
            .world()
            .ray_hit(origin, dir)
            .map(|(_, t)| t)
            .or(ground);
        let lead = hit.map_or(1.5, |t| (t - THROW_REACH).max(1.5));
        s.live.input(physics::Input::Throw {
            from: origin + dir * lead,
            velocity: dir * speed,
            radius,
            mass,
        });
        Ok(())
    }

    /// Pushes the cube under the canvas point (x, y) with an impulse of `impulse` N s (default
    /// 60) along the view ray; returns whether a cube was hit. As a throw, it takes effect on
    /// the next frame even when made while a frame is in flight (`stats().pushes` counts it).
    pub fn push(&self, x: f64, y: f64, impulse: Option<f64>) -> Result<bool, JsValue> {
        let impulse = impulse.unwrap_or(60.0);
        finite(&[("x", x), ("y", y), ("impulse", impulse)])?;
        let mut s = self.state.borrow_mut();
        let (origin, dir) = s.camera.ray(x, y);
        Ok(s.live.input(physics::Input::Push {
            origin,
            dir,
            impulse,
        }))
    }

    /// Projected Jacobi relaxation, seed convention (negative; the seed uses -0.1), from -0.18
    /// (beyond it the wall's solver diverges once a ball hits: measured) up to 0, exclusive.
    #[wasm_bindgen(js_name = setOmega)]
    pub fn set_omega(&self, omega: f64) -> Result<(), JsValue> {
        if !(physics::MIN_OMEGA..0.0).contains(&omega) {
            return Err(Error::Argument(format!(
                "omega must lie in [{}, 0) in the seed's convention x + omega D (Ax + b): beyond {} \
                 the wall's projected Jacobi diverges once a ball hits; got {omega}",
                physics::MIN_OMEGA,
                physics::MIN_OMEGA
            ))
            .into());
        }
        self.state.borrow_mut().live.settings_mut().omega = omega;
        Ok(())
    }

    /// Iterations per frame, a whole number up to 20000; 0 or undefined for the solver's
    /// default (80 for the accelerated solver, 2n for projected Jacobi: the seed's rule).
    #[wasm_bindgen(js_name = setIterations)]
    pub fn set_iterations(&self, iterations: Option<f64>) -> Result<(), JsValue> {
        let max = physics::MAX_ITERATIONS;
        let said = format!(" from 0 (the solver's default) to {max}");
        let n = whole(
            "iterations",
            iterations.unwrap_or(0.0),
            0.0..=max as f64,
            &said,
        )?;
        self.state.borrow_mut().live.settings_mut().iterations = (n > 0.0).then_some(n as usize);
        Ok(())
    }

    /// `"nesterov"` (accelerated projected Jacobi, its step chosen each frame: the default),
    /// `"jacobi"` (projected Jacobi with `setOmega`'s relaxation: the seed's),
    /// `"gauss-seidel"` (graph-coloured projected Gauss-Seidel, from the factors: the block
    /// layout) or `"soft"` (the soft step: `setIterations` substeps, 4 by default, each two
    /// Gauss-Seidel sweeps with a 60 Hz spring on the penetration and a rigid one; the block
    /// layout).
    #[wasm_bindgen(js_name = setSolver)]
    pub fn set_solver(&self, solver: &str) -> Result<(), JsValue> {
        self.state.borrow_mut().live.settings_mut().method = ContactMethod::named(solver)?;
        Ok(())
    }

    /// All solver settings at once: `"texla"` (the default: accelerated, 80 iterations,
    /// blocks, sleeping islands) or `"seed"` (the ShaderX2 article's way: projected Jacobi, omega = -0.1,
    /// 2n iterations, the dense matrix, nothing sleeps). The bodies stay as they are.
    pub fn preset(&self, name: &str) -> Result<(), JsValue> {
        let preset = match name {
            "texla" => physics::Settings::default(),
            "seed" => physics::Settings::seed(),
            other => {
                return Err(Error::Argument(format!(
                    "unknown preset \"{other}\": \"texla\" or \"seed\""
                ))
                .into())
            }
        };
        let mut s = self.state.borrow_mut();
        let settings = s.live.settings_mut();
        (settings.method, settings.omega) = (preset.method, preset.omega);
        (settings.iterations, settings.mode) = (preset.iterations, preset.mode);
        (settings.slop, settings.baumgarte) = (preset.slop, preset.baumgarte);
        settings.sleeping = preset.sleeping;
        Ok(())
    }

    /// Sleeping islands on (the default) or off: an island whose cubes have all moved slower
    /// than 5 mm/s for 1 s falls asleep, neither solved nor moved until an awake body touches
    /// it (a thrown ball, a pushed cube). Off wakes everything.
    #[wasm_bindgen(js_name = setSleeping)]
    pub fn set_sleeping(&self, on: bool) {
        self.state.borrow_mut().live.settings_mut().sleeping = on;
    }

    /// `"dense"` (one (4C) x (4C) matrix) or `"blocks"` (each contact against its neighbours).
    #[wasm_bindgen(js_name = setMode)]
    pub fn set_mode(&self, mode: &str) -> Result<(), JsValue> {
        let mode = match mode {
            "dense" => physics::Mode::Dense,
            "blocks" => physics::Mode::Blocks,
            other => {
                return Err(Error::Argument(format!(
                    "unknown solve mode \"{other}\": \"dense\" or \"blocks\""
                ))
                .into())
            }
        };
        self.state.borrow_mut().live.settings_mut().mode = mode;
        Ok(())
    }

    /// Body centres, m: x, y, z per body in creation order (the cubes, then the ball).
    pub fn positions(&self) -> js_sys::Float64Array {
        self.per_body(|b| b.position)
    }

    /// Body velocities, m/s: x, y, z per body in creation order (the cubes, then the ball).
    pub fn velocities(&self) -> js_sys::Float64Array {
        self.per_body(|b| b.velocity)
    }

    /// What the last frame did: `{frame, bodies, asleep, contacts, islands, lcpSize,
    /// iterations, solveMs, cpuMs, frameMs, parts, residual, penetration, energy, energyIn,
    /// mode, omega, solver, step, sleeping, throws, pushes}` (`throws`: balls thrown since the
    /// wall was built or reset, one flying at a time; `pushes`: pushes that hit a cube; `step`: the step or relaxation the last frame's
    /// solver used; `asleep`: bodies asleep; `contacts`: those solved, none of a sleeping
    /// island; `solveMs`: the GPU part, upload to read-back; `cpuMs`: the CPU's parts, the
    /// rest; `parts`: where the frame's milliseconds went, `{contacts, assembly, step, layout,
    /// upload, solve, end}`, as the native benchmark reports them).
    #[wasm_bindgen(unchecked_return_type = "WallStats")]
    pub fn stats(&self) -> Object {
        Self::stats_of(&self.state.borrow())
    }

    /// The last frame's LCP (`lcp()`) solved again on the GPU by `solver` (`"nesterov"`,
    /// `"jacobi"` or `"gauss-seidel"`, as `setSolver` names them) in `iterations` (1 to 20000),
    /// from `start`: `"warm"` (the default: the frame's warm start `x0`) or `"zero"`, with the
    /// wall's omega and the step the frame would choose: the impulses, 3 per contact in
    /// `lcp()`'s order, projected. The wall does not move. Rejects before the first frame. The
    /// LCP lesson compares the solvers on one frame with it.
    #[wasm_bindgen(js_name = solveLcp, unchecked_return_type = "Promise<Float64Array>")]
    pub fn solve_lcp(&self, solver: &str, iterations: f64, start: Option<String>) -> Promise {
        let gpu = self.gpu.clone();
        let asked = ContactMethod::named(solver).and_then(|method| {
            if method == ContactMethod::Soft {
                return Err(Error::Argument(
                    "solveLcp compares the LCP solvers on one frame; the soft step moves the \
                     bodies within its frame, so it has no answer to that frame's LCP"
                        .into(),
                ));
            }
            let max = physics::MAX_ITERATIONS;
            let n = whole(
                "iterations",
                iterations,
                1.0..=max as f64,
                &format!(" from 1 to {max}"),
            )?;
            let s = self.state.borrow();
            let Some((lcp, _)) = &s.last else {
                return Err(Error::Argument(
                    "solveLcp solves the last frame's LCP: step the wall first".into(),
                ));
            };
            let mut lcp = lcp.clone();
            match start.as_deref().unwrap_or("warm") {
                "warm" => {}
                "zero" => lcp.x0.iter_mut().for_each(|x| *x = [0.0; 3]),
                other => {
                    return Err(Error::Argument(format!(
                        "solveLcp's start is \"warm\" or \"zero\", not \"{other}\""
                    )))
                }
            }
            let world = s.live.world();
            let solve = world.contact_solve_with(&lcp, method, n as usize);
            Ok((lcp, world.settings.mode, solve))
        });
        future_to_promise(async move {
            let (lcp, mode, solve) = asked?;
            let x = physics::gpu_solve(gpu.as_ref(), &lcp, mode, solve).await?;
            let flat: Vec<f64> = x.into_iter().flatten().collect();
            Ok(js_sys::Float64Array::from(flat.as_slice()).into())
        })
    }

    /// The last frame's LCP and the GPU's answer, for checking in float64: `{contacts, size,
    /// a (dense size x size, row-major), b, x0, x (the GPU's impulses), mu, solver, omega,
    /// step, iterations, island and colour (per contact: Gauss-Seidel's colours)}`; unknowns
    /// per contact in the order normal,
    /// tangent, tangent.
    /// `null` before the first frame; an Error past 3000 unknowns (the dense matrix would take
    /// 72 MB; one wall's LCP has about 1260).
    #[wasm_bindgen(unchecked_return_type = "WallLcp | null")]
    pub fn lcp(&self) -> Result<JsValue, JsValue> {
        let s = self.state.borrow();
        let Some((lcp, x)) = &s.last else {
            return Ok(JsValue::NULL);
        };
        let world = s.live.world();
        if lcp.size() > MAX_CHECKED_UNKNOWNS {
            return Err(Error::Argument(format!(
                "this frame's LCP has {} unknowns: too many to copy as a dense float64 matrix for \
                 checking (at most {MAX_CHECKED_UNKNOWNS}; one wall has about 1260)",
                lcp.size()
            ))
            .into());
        }
        let flat = |v: &[[f64; 3]]| {
            js_sys::Float64Array::from(v.iter().flatten().copied().collect::<Vec<_>>().as_slice())
        };
        let island: Vec<u32> = lcp.island.iter().map(|&i| i as u32).collect();
        let (colours, _) = lcp.colours();
        Ok(object(&[
            ("contacts", lcp.contacts.len().into()),
            ("size", lcp.size().into()),
            (
                "a",
                js_sys::Float64Array::from(lcp.dense().as_slice()).into(),
            ),
            ("b", flat(&lcp.b).into()),
            ("x0", flat(&lcp.x0).into()),
            ("x", flat(x).into()),
            ("mu", lcp.mu.into()),
            ("solver", world.settings.method.name().into()),
            ("omega", world.settings.omega.into()),
            ("step", world.stats.step.into()),
            ("iterations", world.stats.iterations.into()),
            (
                "island",
                js_sys::Uint32Array::from(island.as_slice()).into(),
            ),
            (
                "colour",
                js_sys::Uint32Array::from(colours.as_slice()).into(),
            ),
        ])
        .into())
    }
}

impl Wall {
    /// One vector of every body, flattened.
    fn per_body(&self, of: impl Fn(&physics::Body) -> glam::DVec3) -> js_sys::Float64Array {
        let s = self.state.borrow();
        let flat: Vec<f64> = s
            .live
            .world()
            .bodies
            .iter()
            .flat_map(|b| of(b).to_array())
            .collect();
        js_sys::Float64Array::from(flat.as_slice())
    }

    fn parts_of(t: &physics::FrameTimes) -> Object {
        object(&[
            ("contacts", t.contacts.into()),
            ("assembly", t.assembly.into()),
            ("step", t.step.into()),
            ("layout", t.layout.into()),
            ("upload", t.upload.into()),
            ("solve", t.solve.into()),
            ("end", t.end.into()),
        ])
    }

    fn stats_of(s: &WallState) -> Object {
        let w = s.live.world();
        let islands = js_sys::Array::new();
        for &size in &w.stats.islands {
            islands.push(&size.into());
        }
        object(&[
            ("frame", (w.stats.frame as f64).into()),
            ("bodies", w.bodies.len().into()),
            ("asleep", w.stats.asleep.into()),
            ("contacts", w.stats.contacts.into()),
            ("islands", islands.into()),
            ("lcpSize", (3 * w.stats.contacts).into()),
            ("iterations", w.stats.iterations.into()),
            ("solveMs", s.parts.gpu().into()),
            ("cpuMs", s.parts.cpu().into()),
            ("frameMs", s.frame_ms.into()),
            ("parts", Self::parts_of(&s.parts).into()),
            (
                "narrowPhase",
                if s.parts.gpu_contacts { "gpu" } else { "cpu" }.into(),
            ),
            ("residual", w.stats.residual.into()),
            ("penetration", w.stats.penetration.into()),
            ("energy", w.energy().into()),
            ("energyIn", w.energy_in().into()),
            (
                "mode",
                match w.settings.mode {
                    physics::Mode::Dense => "dense",
                    physics::Mode::Blocks => "blocks",
                }
                .into(),
            ),
            ("omega", w.settings.omega.into()),
            ("solver", w.settings.method.name().into()),
            ("step", w.stats.step.into()),
            ("sleeping", w.settings.sleeping.into()),
            ("throws", (w.inputs().throws as f64).into()),
            ("pushes", (w.inputs().pushes as f64).into()),
        ])
    }
}

/// `walls` as a number of walls the API takes (1 to 1000), or a clear error.
pub(super) fn wall_count(walls: f64) -> Result<usize, Error> {
    whole("walls", walls, 1.0..=1000.0, " from 1 to 1000").map(|w| w as usize)
}

/// How far before what it aims at a thrown ball starts, m: the default camera's distance to the
/// wall's face less 1.5 m, so that a throw at one wall starts where it always did.
const THROW_REACH: f64 = 7.5;
