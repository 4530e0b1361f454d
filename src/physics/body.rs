//! A rigid body: a cube or a ball, with its state.

use glam::{DMat3, DQuat, DVec3};

/// The shape of a body, in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A cube of edge `2 * half`.
    Cube {
        /// Half the edge.
        half: f64,
    },
    /// A ball.
    Ball {
        /// Its radius.
        radius: f64,
    },
}

/// A rigid body and its state.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Its shape.
    pub shape: Shape,
    /// Centre of mass, m.
    pub position: DVec3,
    /// Orientation, body to world.
    pub orientation: DQuat,
    /// Linear velocity, m/s.
    pub velocity: DVec3,
    /// Angular velocity in world axes, rad/s.
    pub spin: DVec3,
    /// 1 / mass, 1/kg.
    pub inv_mass: f64,
    /// 1 / principal moments of inertia (body axes), 1/(kg m^2).
    pub inv_inertia: DVec3,
    /// Display colour, linear RGB in 0..1.
    pub color: [f32; 3],
    /// Seconds the body has moved slower than the sleep thresholds, without a break.
    pub still: f64,
    /// `Some(island)` while the body sleeps: it is neither solved nor moved until an awake body
    /// touches a body of the same sleeping island ([`crate::physics::World`]'s sleeping).
    pub asleep: Option<usize>,
}

impl Body {
    /// A cube of edge `2 * half` and mass `mass` at rest at `position`.
    pub fn cube(position: DVec3, half: f64, mass: f64, color: [f32; 3]) -> Self {
        // I = m (edge^2 + edge^2) / 12 about every axis.
        let moment = mass * 8.0 * half * half / 12.0;
        Body {
            shape: Shape::Cube { half },
            position,
            orientation: DQuat::IDENTITY,
            velocity: DVec3::ZERO,
            spin: DVec3::ZERO,
            inv_mass: 1.0 / mass,
            inv_inertia: DVec3::splat(1.0 / moment),
            color,
            still: 0.0,
            asleep: None,
        }
    }

    /// A solid ball of radius `radius` and mass `mass` at `position` moving at `velocity`.
    pub fn ball(position: DVec3, radius: f64, mass: f64, velocity: DVec3) -> Self {
        let moment = 0.4 * mass * radius * radius;
        Body {
            shape: Shape::Ball { radius },
            position,
            orientation: DQuat::IDENTITY,
            velocity,
            spin: DVec3::ZERO,
            inv_mass: 1.0 / mass,
            inv_inertia: DVec3::splat(1.0 / moment),
            color: [0.85, 0.2, 0.15],
            still: 0.0,
            asleep: None,
        }
    }

    /// Mass, kg.
    pub fn mass(&self) -> f64 {
        1.0 / self.inv_mass
    }

    /// The rotation matrix, body to world.
    pub fn rotation(&self) -> DMat3 {
        DMat3::from_quat(self.orientation)
    }

    /// The inverse inertia tensor in world axes, R diag(inv_inertia) R^T.
    pub fn inv_inertia_world(&self) -> DMat3 {
        let r = self.rotation();
        r * DMat3::from_diagonal(self.inv_inertia) * r.transpose()
    }

    /// Velocity of the body's material point at world position `p`, m/s.
    pub fn velocity_at(&self, p: DVec3) -> DVec3 {
        self.velocity + self.spin.cross(p - self.position)
    }

    /// Kinetic plus potential energy (gravity `g` m/s^2 along -y, zero at y = 0), J.
    pub fn energy(&self, g: f64) -> f64 {
        let m = self.mass();
        let r = self.rotation();
        let local_spin = r.transpose() * self.spin;
        let inertia = DVec3::ONE / self.inv_inertia;
        0.5 * m * self.velocity.length_squared()
            + 0.5 * (inertia * local_spin * local_spin).element_sum()
            + m * g * self.position.y
    }

    /// Fastest speed of any point of the body, bounded above: centre speed plus spin times
    /// reach, m/s.
    pub fn fastest_point(&self) -> f64 {
        self.velocity.length() + self.spin.length() * self.reach()
    }

    /// Radius of the bounding sphere, m.
    pub fn reach(&self) -> f64 {
        match self.shape {
            Shape::Cube { half } => half * 3f64.sqrt(),
            Shape::Ball { radius } => radius,
        }
    }

    /// The lowest point's height above the ground, m (negative when it sinks in).
    pub fn lowest(&self) -> f64 {
        match self.shape {
            Shape::Ball { radius } => self.position.y - radius,
            Shape::Cube { half } => {
                let r = self.rotation();
                let reach = half * (r.x_axis.y.abs() + r.y_axis.y.abs() + r.z_axis.y.abs());
                self.position.y - reach
            }
        }
    }

    /// Applies the impulse `j` (N s) at world point `p`.
    pub fn apply_impulse(&mut self, j: DVec3, p: DVec3) {
        self.apply_impulse_turned(j, p, &self.inv_inertia_world());
    }

    /// [`Self::apply_impulse`] with the body's [`Self::inv_inertia_world`] already at hand.
    pub fn apply_impulse_turned(&mut self, j: DVec3, p: DVec3, inv_inertia_world: &DMat3) {
        self.velocity += j * self.inv_mass;
        self.spin += *inv_inertia_world * (p - self.position).cross(j);
    }

    /// Moves the body on by `dt` seconds at its current velocities (semi-implicit Euler).
    pub fn integrate(&mut self, dt: f64) {
        self.position += self.velocity * dt;
        let w = self.spin;
        let dq = DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * self.orientation * (0.5 * dt);
        self.orientation = (self.orientation + dq).normalize();
    }

    /// Wakes the body: it is solved and moved again, its stillness counted anew.
    pub fn wake(&mut self) {
        self.asleep = None;
        self.still = 0.0;
    }

    /// True when every number of the state is finite.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.orientation.is_finite()
            && self.velocity.is_finite()
            && self.spin.is_finite()
    }
}
