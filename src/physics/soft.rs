//! The soft step in float64: the frame cut into substeps, each solving the contacts' normal
//! rows twice with a soft position correction and the whole contacts once more without it
//! (Box2D v3's solver; Rapier's and nexus's substeps are alike), by graph-coloured
//! Gauss-Seidel.
//!
//! The contacts and their J are found once a frame; within it a contact's separation follows
//! its bodies' displacements through J (the contact points do not turn with the bodies). Per
//! substep of h = dt / n:
//!
//! ```text
//!   gravity      v += h g
//!   warm start   each contact's impulses of the substep before are applied again
//!   soft sweeps  SOFT_SWEEPS times, colour after colour, contact by contact: the normal row
//!                with a spring of CONTACT_HERTZ, damping ratio CONTACT_DAMPING, on the
//!                separation s
//!   move         the bodies' displacement += h v
//!   rigid sweep  the normal row without the spring, then friction within mu x_n
//! ```
//!
//! A contact still apart (s > 0) lets its bodies close the gap within the substep and no
//! faster, in both sweeps. Friction only in the rigid sweep, as Rapier does: with it in both,
//! the thrown ball pressed a cube 27% of the edge into the floor, without it 7% (Rapier 0.36:
//! 8.2%). The world gets two sums per contact back ([`SoftImpulses`]): the impulse that changed
//! the velocities over the frame, and the one behind the displacement.

use glam::DVec3;

use super::lcp::ContactLcp;
use super::world::Settings;
use crate::order::order_by;
use crate::solver::SoftStep;

/// The correction spring's frequency, Hz (Box2D v3's and Rapier's 30; at most a quarter of
/// the substep rate, which 60 is at 4 substeps). At 30 Hz the standing wall sank 0.50% of
/// the edge into its lowest contacts; at 60 Hz with two soft sweeps 0.18%, at rest. With one
/// soft sweep springs above 45 Hz let the wall creep at 1-6 cm/s
/// (`bench/records/soft-step-60hz-float64-2026-11-27.log`).
pub const CONTACT_HERTZ: f64 = 60.0;

/// The correction spring's damping ratio. Measured on the standing wall in float64 at 4
/// substeps: 1 leaves it at rest within 2 s, where Box2D's and Rapier's 10 let it creep at
/// 2-5 cm/s (`bench/records/soft-step-float64-2026-11-27.log`).
pub const CONTACT_DAMPING: f64 = 1.0;

/// Substeps a frame (Box2D v3's and Rapier's 4).
pub const SOFT_SUBSTEPS: usize = 4;

/// Soft sweeps of the normal rows a substep (Box2D's and Rapier's 1): the second is what holds
/// a 60 Hz spring still; it costs a normal row per contact more a substep (5 rows where the
/// peers solve 4) and one more pass over the colours.
pub const SOFT_SWEEPS: usize = 2;

/// What the soft step gives the world, per contact (normal, tangent 1, tangent 2).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SoftImpulses {
    /// The impulse over the frame, N s: what the velocities change by.
    pub velocity: Vec<[f64; 3]>,
    /// h times the impulse applied by the end of each substep's soft sweep, summed, N s^2:
    /// what moves the positions besides the velocities the frame started with.
    pub position: Vec<[f64; 3]>,
}

/// The spring of a soft contact for a substep of `h` s (Box2D's `b2MakeSoft`): the rate
/// (1/s) at which the separation is corrected, and the factors on the effective mass and on
/// the impulse already applied. The impulse settles where the spring holds the load, so a
/// stack sinks by about its weight over the contacts' stiffness, (2 pi hertz)^2 times their
/// effective mass: 1.9% of the edge for the standing wall at 30 Hz, 0.5% at 60 Hz.
fn softness(h: f64) -> (f64, f64, f64) {
    let hertz = CONTACT_HERTZ.min(0.25 / h);
    let omega = 2.0 * std::f64::consts::PI * hertz;
    let a1 = 2.0 * CONTACT_DAMPING + h * omega;
    let a2 = h * omega * a1;
    let a3 = 1.0 / (1.0 + a2);
    (omega / a1, a2 * a3, a3)
}

/// The GPU's numbers of the soft step ([`crate::solver::solve_soft`]) for `settings`, in
/// `substeps` substeps, with the friction coefficient `mu`.
pub fn soft_numbers(settings: &Settings, substeps: usize, mu: f64) -> SoftStep {
    let (rate, mass, keep) = softness(settings.dt / substeps.max(1) as f64);
    SoftStep {
        substeps,
        sweeps: SOFT_SWEEPS,
        dt: settings.dt as f32,
        gravity: settings.gravity as f32,
        spring: (rate as f32, mass as f32, keep as f32),
        max_correction: settings.max_correction as f32,
        mu: mu as f32,
    }
}

/// A body's change of velocity and spin made by the impulses so far, and the displacement
/// (m) and turn (rad) they made.
#[derive(Debug, Clone, Copy, Default)]
struct Moved {
    velocity: DVec3,
    spin: DVec3,
    shift: DVec3,
    turn: DVec3,
}

impl ContactLcp {
    /// The soft step of `dt` s in `substeps` substeps, gravity `gravity` m/s^2 along -y (the
    /// velocities b was made from hold the whole frame's; b must have no correction target:
    /// `World::lcp` gives it none for this method), the correction no faster than
    /// `max_correction` m/s; see the module's text. The warm start `x0` is an impulse over a
    /// frame, so each substep starts from its n-th part.
    pub fn solve_soft(
        &self,
        dt: f64,
        gravity: f64,
        substeps: usize,
        max_correction: f64,
    ) -> SoftImpulses {
        let n = substeps.max(1);
        let h = dt / n as f64;
        let (bias_rate, mass_scale, impulse_scale) = softness(h);
        let contacts = self.contacts.len();
        let (colours, _) = self.colours();
        let order = order_by(contacts, |i| colours[i] as u64);
        // The velocity rows the frame starts with (b, assembled with no correction), and what
        // h of gravity changes them by.
        let free = &self.b;
        let fall: Vec<[f64; 3]> = (0..contacts)
            .map(|i| {
                let sides = self.jacobian.sides(i).map(|s| s.sign).sum::<f64>();
                self.directions[i].map(|e| sides * e.y * gravity * h)
            })
            .collect();
        // Row r of contact i through J: over its bodies, sign (e_r . linear + arm_r . angular).
        let along = |i: usize, r: usize, m: &[Moved], part: fn(&Moved) -> (DVec3, DVec3)| {
            self.jacobian
                .sides(i)
                .map(|s| {
                    let (linear, angular) = part(&m[s.body]);
                    s.sign * (self.directions[i][r].dot(linear) + s.arms[r].dot(angular))
                })
                .sum::<f64>()
        };
        let mut moved = vec![Moved::default(); self.jacobian.bodies()];
        let mut x: Vec<[f64; 3]> = self.x0.iter().map(|x| x.map(|v| v / n as f64)).collect();
        let mut total = vec![[0.0; 3]; contacts];
        let mut position = vec![[0.0; 3]; contacts];
        for k in 1..=n {
            // The bodies have k h of the frame's gravity; the substeps before moved them by
            // h (k - 1) v0 plus what the gravity still missing then held back (and the move
            // adds this substep's).
            let late = (n - k) as f64;
            let mut early = h * (1..k).map(|j| (n - j) as f64).sum::<f64>();
            let mut start = h * (k - 1) as f64;
            for (i, x) in x.iter().enumerate() {
                self.apply(i, *x, &mut moved);
            }
            for pass in 0..=SOFT_SWEEPS {
                let soft = pass < SOFT_SWEEPS;
                for &i in &order {
                    let separation = -self.contacts[i].depth
                        + start * free[i][0]
                        + early * fall[i][0]
                        + along(i, 0, &moved, |m| (m.shift, m.turn));
                    for r in 0..if soft { 1 } else { 3 } {
                        let now = x[i][r];
                        let w = free[i][r] + late * fall[i][r];
                        let w = w + along(i, r, &moved, |m| (m.velocity, m.spin));
                        let new = if r > 0 {
                            let limit = self.mu * x[i][0];
                            (now - w / self.diagonal[i][r]).clamp(-limit, limit)
                        } else {
                            let (target, scale, keep) = if separation > 0.0 {
                                (separation / h, 1.0, 0.0)
                            } else if soft {
                                let push = (bias_rate * separation).max(-max_correction);
                                (push, mass_scale, impulse_scale)
                            } else {
                                (0.0, 1.0, 0.0)
                            };
                            (now - scale * (w + target) / self.diagonal[i][0] - keep * now).max(0.0)
                        };
                        let mut change = [0.0; 3];
                        change[r] = new - now;
                        self.apply(i, change, &mut moved);
                        x[i][r] = new;
                    }
                }
                if pass + 1 == SOFT_SWEEPS {
                    // Move: this substep's displacement, free and by the impulses so far.
                    (start, early) = (start + h, early + h * late);
                    for m in &mut moved {
                        m.shift += h * m.velocity;
                        m.turn += h * m.spin;
                    }
                    for ((p, t), x) in position.iter_mut().zip(&total).zip(&x) {
                        *p = [0, 1, 2].map(|r| p[r] + h * (t[r] + x[r]));
                    }
                }
            }
            for (t, x) in total.iter_mut().zip(&x) {
                *t = [0, 1, 2].map(|r| t[r] + x[r]);
            }
        }
        SoftImpulses {
            velocity: total,
            position,
        }
    }

    /// Applies contact `i`'s impulse `x` to its bodies' change of velocity and spin.
    fn apply(&self, i: usize, x: [f64; 3], moved: &mut [Moved]) {
        let e = &self.directions[i];
        let linear = e[0] * x[0] + e[1] * x[1] + e[2] * x[2];
        for side in self.jacobian.sides(i) {
            let angular = side.arms[0] * x[0] + side.arms[1] * x[1] + side.arms[2] * x[2];
            let (inv_mass, inv_inertia) = self.jacobian.inverse(side.body);
            let m = &mut moved[side.body];
            m.velocity += linear * (side.sign * inv_mass);
            m.spin += *inv_inertia * angular * side.sign;
        }
    }
}
