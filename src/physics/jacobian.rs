//! J and M^-1 of one frame's contacts: what A = J M^-1 J^T is made of.
//!
//! Contact i's row of J has, for each moving body k it touches, the sign s of its impulse on k
//! (+ on body a, - on body b) and its three directions e (normal, tangent 1, tangent 2): the
//! linear part s e and the angular part s (r x e), r from k's centre to the contact point. A
//! product A u through them costs a few dozen operations per contact (J^T u gathers each
//! body's impulse, M^-1 turns it into velocity, J reads the velocity back along each contact's
//! directions), where A's blocks cost one 3 x 3 block per neighbour, about 28 for the standing
//! wall.

use std::ops::Range;

use glam::{DMat3, DVec3};

use super::body::Body;
use super::contact::Contact;

/// One moving body of a contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    /// The body.
    pub body: usize,
    /// The sign of the contact's impulse on the body: +1 for body a, -1 for body b.
    pub sign: f64,
    /// The lever arms r x e of the contact's three directions about the body's centre, m.
    pub arms: [DVec3; 3],
}

/// J and M^-1 of a frame's contacts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Jacobian {
    /// Each contact's one or two moving bodies, in ascending body order.
    sides: Vec<[Option<Side>; 2]>,
    /// 1 / mass and the inverse inertia tensor in world axes of every body.
    inverse: Vec<(f64, DMat3)>,
}

impl Jacobian {
    /// J of `contacts` (unit `directions`, normal first) among `bodies`, and their M^-1.
    pub fn new(bodies: &[Body], contacts: &[Contact], directions: &[[DVec3; 3]]) -> Self {
        let sides = contacts
            .iter()
            .zip(directions)
            .map(|(c, dirs)| {
                let side = |body: usize, sign: f64| {
                    let r = c.point - bodies[body].position;
                    Some(Side {
                        body,
                        sign,
                        arms: dirs.map(|e| r.cross(e)),
                    })
                };
                let a = side(c.a, 1.0);
                match c.b {
                    Some(b) if b < c.a => [side(b, -1.0), a],
                    Some(b) => [a, side(b, -1.0)],
                    None => [a, None],
                }
            })
            .collect();
        let inverse = bodies
            .iter()
            .map(|b| (b.inv_mass, b.inv_inertia_world()))
            .collect();
        Jacobian { sides, inverse }
    }

    /// Contacts (rows of J).
    pub fn contacts(&self) -> usize {
        self.sides.len()
    }

    /// Bodies (M^-1 has one 6 x 6 block each).
    pub fn bodies(&self) -> usize {
        self.inverse.len()
    }

    /// Contact `i`'s moving bodies, in ascending body order.
    pub fn sides(&self, i: usize) -> impl Iterator<Item = &Side> {
        self.sides[i].iter().flatten()
    }

    /// Body `k`'s 1 / mass (1/kg) and inverse inertia tensor in world axes (1/(kg m^2)).
    pub fn inverse(&self, k: usize) -> (f64, &DMat3) {
        let (inv_mass, inv_inertia) = &self.inverse[k];
        (*inv_mass, inv_inertia)
    }

    /// Runs of consecutive contacts, `sizes` of them one after the other from the first, each
    /// with its moving bodies (each once, in the order its contacts meet them): what a product
    /// of one run's contacts alone reads, where no other contact shares their bodies (an
    /// island).
    pub fn runs(&self, sizes: &[usize]) -> Vec<Run> {
        let mut seen = vec![usize::MAX; self.inverse.len()];
        let mut first = 0;
        sizes
            .iter()
            .enumerate()
            .map(|(k, &size)| {
                let contacts = first..first + size;
                first += size;
                let mut bodies = Vec::new();
                for side in self.sides[contacts.clone()].iter().flatten().flatten() {
                    if seen[side.body] != k {
                        seen[side.body] = k;
                        bodies.push(side.body);
                    }
                }
                Run { contacts, bodies }
            })
            .collect()
    }

    /// J M^-1 J^T u of the contacts of `run` into `out`, `u` and `out` theirs (3 per
    /// contact), `directions` those of all contacts, `moved` room for one (velocity, spin) per
    /// body.
    pub fn product(
        &self,
        run: &Run,
        directions: &[[DVec3; 3]],
        u: &[[f64; 3]],
        out: &mut [[f64; 3]],
        moved: &mut [(DVec3, DVec3)],
    ) {
        let sides = &self.sides[run.contacts.clone()];
        let directions = &directions[run.contacts.clone()];
        for &k in &run.bodies {
            moved[k] = (DVec3::ZERO, DVec3::ZERO);
        }
        // J^T u: each body's linear and angular impulse.
        for ((sides, e), u) in sides.iter().zip(directions).zip(u) {
            let linear = e[0] * u[0] + e[1] * u[1] + e[2] * u[2];
            for side in sides.iter().flatten() {
                let [r0, r1, r2] = side.arms;
                let angular = r0 * u[0] + r1 * u[1] + r2 * u[2];
                let m = &mut moved[side.body];
                m.0 += linear * side.sign;
                m.1 += angular * side.sign;
            }
        }
        // M^-1: each body's change of velocity and spin.
        for &k in &run.bodies {
            let (inv_mass, inv_inertia) = &self.inverse[k];
            moved[k] = (moved[k].0 * *inv_mass, *inv_inertia * moved[k].1);
        }
        // J: those changes read along each contact's directions.
        for ((sides, e), w) in sides.iter().zip(directions).zip(out) {
            *w = [0.0; 3];
            for side in sides.iter().flatten() {
                let (velocity, spin) = moved[side.body];
                for (r, w) in w.iter_mut().enumerate() {
                    *w += side.sign * (e[r].dot(velocity) + side.arms[r].dot(spin));
                }
            }
        }
    }
}

/// A run of contacts and their moving bodies ([`Jacobian::runs`]).
pub struct Run {
    contacts: Range<usize>,
    bodies: Vec<usize>,
}

impl Run {
    /// The run's contacts.
    pub fn contacts(&self) -> Range<usize> {
        self.contacts.clone()
    }
}
