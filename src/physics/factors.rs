//! A frame's contact LCP as the factors of its matrix, A = J M^-1 J^T + R
//! ([`ContactFactors`]: the single-dispatch solver's layout, 9 texels per contact and 3 per
//! body instead of A's block rows).

use super::blocks::REGULARISATION;
use super::body::Body;
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

    /// The factors of this LCP's matrix for `bodies` (the bodies it was assembled for, at the
    /// same positions): J from the contact directions and lever arms, M^-1 from the bodies.
    pub fn factors(&self, bodies: &[Body]) -> ContactFactors {
        let contacts = self.contacts.len();
        // Body slots in the order of the contacts: each island's bodies are one run.
        let mut slot = vec![usize::MAX; bodies.len()];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut island_bodies: Vec<usize> = Vec::new();
        let mut jacobian = vec![0.0f32; 4 * contacts * JACOBIAN_TEXELS];
        for (c, contact) in self.contacts.iter().enumerate() {
            if c == 0 || self.island[c] != self.island[c - 1] {
                island_bodies.push(0);
            }
            let mut slots = [0.0f32; 2];
            for (side, body) in [Some(contact.a), contact.b].into_iter().enumerate() {
                let Some(k) = body else { continue };
                if slot[k] == usize::MAX {
                    slot[k] = members.len();
                    members.push(Vec::new());
                    *island_bodies.last_mut().expect("an island") += 1;
                }
                members[slot[k]].push(2 * c + side);
                slots[side] = (slot[k] + 1) as f32;
                let r = contact.point - bodies[k].position;
                for (d, e) in self.directions[c].iter().enumerate() {
                    let arm = r.cross(*e).as_vec3().to_array();
                    let texel = [arm[0], arm[1], arm[2], 0.0];
                    ContactFactors::put(
                        &mut jacobian,
                        JACOBIAN_TEXELS,
                        (c, 3 + 3 * side + d),
                        texel,
                    );
                }
            }
            for (d, e) in self.directions[c].iter().enumerate() {
                let e = e.as_vec3().to_array();
                let w = if d < 2 { slots[d] } else { 0.0 };
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
        let mut bodies_of_slots = vec![0; members.len()];
        for (k, &s) in slot.iter().enumerate() {
            if s != usize::MAX {
                bodies_of_slots[s] = k;
            }
        }
        for (s, list) in members.iter().enumerate() {
            let body = &bodies[bodies_of_slots[s]];
            let inertia = body
                .inv_inertia_world()
                .transpose()
                .as_mat3()
                .to_cols_array_2d();
            for (row, line) in inertia.iter().enumerate() {
                let w = if row == 0 { body.inv_mass as f32 } else { 0.0 };
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
        }
    }
}
