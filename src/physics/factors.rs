//! A frame's contact LCP as the factors of its matrix, A = J M^-1 J^T + R
//! ([`ContactFactors`]: the single-dispatch solver's layout, 9 texels per contact and 3 per
//! body instead of A's block rows).

use super::blocks::{self, REGULARISATION};
use super::lcp::ContactLcp;
use crate::solver::{ContactFactors, ContactLayout, JACOBIAN_TEXELS};

impl ContactLcp {
    /// The layout of the matrix as its `factors` alone, without A's block rows: what the
    /// single-dispatch solver reads (a tenth of the upload).
    pub fn factored_layout(&self, factors: ContactFactors) -> ContactLayout {
        ContactLayout {
            neighbours: Some(Vec::new()),
            factors: Some(factors),
            ..self.vectors_layout()
        }
    }

    /// The factors of this LCP's matrix in float32, from its J and M^-1
    /// ([`super::jacobian::Jacobian`]).
    pub fn factors(&self) -> ContactFactors {
        let contacts = self.contacts.len();
        // Body slots in the order of the contacts: each island's bodies are one run.
        let mut slot: Vec<usize> = Vec::new();
        let mut bodies_of_slots: Vec<usize> = Vec::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut island_bodies: Vec<usize> = Vec::new();
        let mut jacobian = vec![0.0f32; 4 * contacts * JACOBIAN_TEXELS];
        let (colours, colour_count) = self.colours();
        for c in 0..contacts {
            if c == 0 || self.island[c] != self.island[c - 1] {
                island_bodies.push(0);
            }
            let mut slots = [0.0f32; 2];
            for s in self.jacobian.sides(c) {
                let k = s.body;
                if slot.len() <= k {
                    slot.resize(k + 1, usize::MAX);
                }
                if slot[k] == usize::MAX {
                    slot[k] = members.len();
                    members.push(Vec::new());
                    bodies_of_slots.push(k);
                    *island_bodies.last_mut().expect("an island") += 1;
                }
                // Side 0: body a (the impulse's sign +1), side 1: body b.
                let side = usize::from(s.sign < 0.0);
                members[slot[k]].push(2 * c + side);
                slots[side] = (slot[k] + 1) as f32;
                for (d, arm) in s.arms.iter().enumerate() {
                    let arm = arm.as_vec3().to_array();
                    let texel = [arm[0], arm[1], arm[2], 0.0];
                    ContactFactors::put(
                        &mut jacobian,
                        JACOBIAN_TEXELS,
                        (c, 3 + 3 * side + d),
                        texel,
                    );
                }
            }
            // Texels 3 to 5 carry A_ii's off-diagonal in w (Gauss-Seidel's step).
            let off = blocks::off_diagonal(&self.jacobian, &self.directions, c);
            for (d, o) in off.iter().enumerate() {
                jacobian[(4 * c + 3) * JACOBIAN_TEXELS + 3 + d] = *o as f32;
            }
            // Texel 6 carries the separation at the frame's start (the soft step's).
            jacobian[(4 * c + 3) * JACOBIAN_TEXELS + 6] = -self.contacts[c].depth as f32;
            for (d, e) in self.directions[c].iter().enumerate() {
                let e = e.as_vec3().to_array();
                let w = if d < 2 { slots[d] } else { colours[c] as f32 };
                ContactFactors::put(
                    &mut jacobian,
                    JACOBIAN_TEXELS,
                    (c, d),
                    [e[0], e[1], e[2], w],
                );
            }
        }
        let longest = members.iter().map(Vec::len).max().unwrap_or(0);
        let body_width = 3 + longest.div_ceil(4);
        let mut data = vec![-1.0f32; 4 * members.len() * body_width];
        for (s, list) in members.iter().enumerate() {
            let (inv_mass, inv_inertia) = self.jacobian.inverse(bodies_of_slots[s]);
            // Rows of the (symmetric) inverse inertia: the transpose's columns.
            let inertia = inv_inertia.transpose().as_mat3().to_cols_array_2d();
            for (row, line) in inertia.iter().enumerate() {
                let w = if row == 0 { inv_mass as f32 } else { 0.0 };
                ContactFactors::put(
                    &mut data,
                    body_width,
                    (s, row),
                    [line[0], line[1], line[2], w],
                );
            }
            for (q, entries) in list.chunks(4).enumerate() {
                let mut texel = [-1.0f32; 4];
                for (t, &e) in texel.iter_mut().zip(entries) {
                    *t = e as f32;
                }
                ContactFactors::put(&mut data, body_width, (s, 3 + q), texel);
            }
        }
        ContactFactors {
            jacobian,
            bodies: data,
            body_width,
            body_count: members.len(),
            island_bodies,
            regularisation: REGULARISATION as f32,
            colours: colour_count,
        }
    }
}
