//! The world a person acts on while its frames run elsewhere. A frame works on a copy of the
//! world, so that the page can draw and take input while the GPU solves, and hands its result
//! back; whatever was done to the world meanwhile (a throw, a push, a new setting) is applied
//! to that result before it becomes the world. No input is lost, none is applied twice.

use glam::DVec3;

use super::{Settings, World};
use crate::error::{Error, Result};

/// Something done to the world from outside a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input {
    /// [`World::throw_ball`]: the ball (radius m, mass kg) from `from` at `velocity` m/s.
    Throw {
        /// Where the ball starts, m.
        from: DVec3,
        /// Its velocity, m/s.
        velocity: DVec3,
        /// Its radius, m.
        radius: f64,
        /// Its mass, kg.
        mass: f64,
    },
    /// [`World::push`]: the first cube on the ray `origin + t dir`, with `impulse` N s.
    Push {
        /// Where the ray starts, m.
        origin: DVec3,
        /// Its direction.
        dir: DVec3,
        /// The impulse along it, N s.
        impulse: f64,
    },
}

impl Input {
    /// Applies the input to `world`; returns whether it took effect (a push may hit nothing).
    fn apply(self, world: &mut World) -> bool {
        match self {
            Input::Throw {
                from,
                velocity,
                radius,
                mass,
            } => {
                world.throw_ball(from, velocity, radius, mass);
                true
            }
            Input::Push {
                origin,
                dir,
                impulse,
            } => world.push(origin, dir, impulse).is_some(),
        }
    }
}

/// A frame's claim on the world, from [`LiveWorld::begin`] to [`LiveWorld::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame(u64);

/// The world between frames, with the frame in flight (at most one) and the inputs made since
/// it began.
#[derive(Debug, Clone)]
pub struct LiveWorld {
    world: World,
    /// The frame in flight, if any.
    in_flight: Option<Frame>,
    /// Inputs since the frame in flight copied the world, in order: its result gets them too.
    pending: Vec<Input>,
    /// The next frame's number.
    next: u64,
}

impl LiveWorld {
    /// `world`, no frame in flight.
    pub fn new(world: World) -> Self {
        LiveWorld {
            world,
            in_flight: None,
            pending: Vec::new(),
            next: 0,
        }
    }

    /// The world as it stands: the last finished frame and every input since.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The settings, to change: the next frame to begin uses them (a frame in flight keeps
    /// those it began with, and its result takes the new ones).
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.world.settings
    }

    /// Whether a frame is in flight.
    pub fn in_flight(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Applies `input` to the world now (it is drawn at once) and, while a frame is in flight,
    /// to that frame's result as well: the next frame to begin starts with it either way.
    /// Returns whether it took effect now (a push may hit nothing).
    pub fn input(&mut self, input: Input) -> bool {
        if self.in_flight.is_some() {
            self.pending.push(input);
        }
        input.apply(&mut self.world)
    }

    /// Starts a frame: a copy of the world to step, and the claim to hand it back with. Fails
    /// while another frame is in flight.
    pub fn begin(&mut self) -> Result<(Frame, World)> {
        if self.in_flight.is_some() {
            return Err(Error::Simulation("a frame is still being simulated".into()));
        }
        let frame = Frame(self.next);
        self.next += 1;
        self.in_flight = Some(frame);
        Ok((frame, self.world.clone()))
    }

    /// Whether `frame` is still the one in flight (not cancelled, nor the world replaced).
    pub fn is_current(&self, frame: Frame) -> bool {
        self.in_flight == Some(frame)
    }

    /// Ends `frame` with the world it stepped (`None`: the frame failed, and the world stays
    /// as it is). The stepped world takes the current settings and the inputs made since the
    /// frame began, and becomes the world. Fails, changing nothing, when `frame` was
    /// abandoned by [`Self::cancel`] or [`Self::replace`].
    pub fn finish(&mut self, frame: Frame, stepped: Option<World>) -> Result<()> {
        if !self.is_current(frame) {
            return Err(Error::Cancelled);
        }
        self.in_flight = None;
        let pending = std::mem::take(&mut self.pending);
        if let Some(mut world) = stepped {
            world.settings = self.world.settings;
            for input in pending {
                input.apply(&mut world);
            }
            self.world = world;
        }
        Ok(())
    }

    /// Abandons the frame in flight, if there is one: the world stays as it is (the inputs
    /// made meanwhile are in it already). Returns whether a frame was abandoned.
    pub fn cancel(&mut self) -> bool {
        self.pending.clear();
        self.in_flight.take().is_some()
    }

    /// Replaces the world (a reset): the frame in flight is abandoned, and the inputs made
    /// during it go with the old world.
    pub fn replace(&mut self, world: World) {
        self.cancel();
        self.world = world;
    }
}
