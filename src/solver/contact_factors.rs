//! The contact LCP's matrix as its factors, for the single-dispatch solver and the factored
//! passes: A = J M^-1 J^T + R, J the contacts' Jacobian (two bodies per contact), M^-1 the
//! bodies' inverse masses and inertias, R the regularisation of each contact's own diagonal.
//! The block rows
//! ([`super::ContactLayout::matrix`]) hold A itself, about 24 blocks of 3 x 3 per contact on the
//! wall; the factors hold 9 texels per contact and 3 per body. One product A y is then two
//! gathers, each over data it owns:
//!
//! ```text
//!   bodies:    v_k = M_k^-1 sum over k's contacts c of  s (J_c,k)^T y_c     (s = +1 a, -1 b)
//!   contacts:  (A y)_c = J_c,a v_a - J_c,b v_b + R_c y_c
//!
//!   contact c, 9 texel columns (4 rows per texel: x, y, z, w):
//!     0: e_n,  w = body slot of a + 1     3: r_a x e_n,  w = A_cc's n t1   6: r_b x e_n, w = s0
//!     1: e_t1, w = body slot of b + 1     4: r_a x e_t1, w = A_cc's n t2   7: r_b x e_t1
//!     2: e_t2, w = the contact's colour   5: r_a x e_t2, w = A_cc's t1 t2  8: r_b x e_t2
//!   (s0: the separation at the frame's start, m, which the soft step's dispatch reads)
//!   (slot 0: no body, the ground; J_c,k = (e_d, r_k x e_d) for the three directions d; the
//!   colour and the off-diagonal of the contact's own block are for Gauss-Seidel's passes:
//!   contacts of one colour share no body, `super::contact_colours`)
//!
//!   body slot k, 3 + L/4 texel columns:
//!     0..2: the rows of the inverse inertia (world axes); w of texel 0: the inverse mass
//!     3.. : its contacts, 4 per texel, as 2c + side (side 1: it is the contact's b), -1 after
//! ```
//!
//! Body slots number the moving bodies the contacts touch in the order of the contacts, so
//! that each island's bodies, like its contacts, are one run.
//!
//! The single dispatch runs both gathers in each of its workgroups, one per group of whole
//! islands, with a barrier between them; fragment passes (WebGL2 has no compute) run them as
//! two passes per iteration over the same textures: `contact_velocities` writes v, two texels
//! per body slot (linear, angular) in the bodies' wrap, `contact_nesterov_factored` reads it
//! and steps the contacts ([`super::ContactPath::Factors`]).

use super::ContactWrap;
use crate::error::Result;
use crate::gpu::Gpu;
use crate::kernels;
use crate::layout::Layout;
use crate::matrix::Matrix;

/// A contact LCP's matrix as its factors (see the module's diagram), row-major data of the
/// plain layout: contact c's texels in rows 4c .. 4c + 3, body slot k's in rows 4k .. 4k + 3.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactFactors {
    /// J, 4C rows x [`JACOBIAN_TEXELS`].
    pub jacobian: Vec<f32>,
    /// The bodies, 4B rows x `body_width`.
    pub bodies: Vec<f32>,
    /// Texel columns per body slot: 3 + L/4, L the most contacts of one body (a multiple of 4).
    pub body_width: usize,
    /// Body slots B.
    pub body_count: usize,
    /// Body slots of each island, in the order of [`super::ContactLayout::islands`].
    pub island_bodies: Vec<usize>,
    /// R: each contact's own diagonal of A is `1 + regularisation` times J M^-1 J^T's.
    pub regularisation: f32,
    /// Colours of the contacts (texel 2's w): Gauss-Seidel's passes per sweep.
    pub colours: usize,
}

/// Texel columns per contact of [`ContactFactors::jacobian`].
pub const JACOBIAN_TEXELS: usize = 9;

impl ContactFactors {
    /// Writes texel `t` of row block `item` (4 rows) of row-major data `width` texels wide.
    pub fn put(data: &mut [f32], width: usize, (item, t): (usize, usize), texel: [f32; 4]) {
        for (k, v) in texel.into_iter().enumerate() {
            data[(4 * item + k) * width + t] = v;
        }
    }
}

/// [`ContactFactors`] on the GPU: what the factored passes read, and the single-dispatch
/// solver with its groups of whole islands.
pub struct FactorSystem {
    /// J, wrapped as the contacts are ([`ContactWrap`]): 4H x 9S.
    pub jacobian: Matrix,
    /// The bodies, wrapped alike in a wrap of their own (body slot k at texel row k % H_b of
    /// segment k / H_b).
    pub bodies: Matrix,
    /// Texel columns per body slot.
    pub body_width: usize,
    /// The bodies' velocities v = M^-1 J^T y the factored passes make: two texel columns
    /// (linear, angular) per segment of the bodies' wrap, 4H_b x 2S_b.
    pub velocities: Layout,
    /// R's factor ([`ContactFactors::regularisation`]).
    pub regularisation: f32,
    /// The contacts' colours ([`ContactFactors::colours`]).
    pub colours: usize,
    /// The single-dispatch solver's workgroups, where compute kernels run.
    pub groups: Option<IslandGroups>,
}

/// The groups of whole islands the single-dispatch solver's workgroups take.
pub struct IslandGroups {
    /// Texel row g of group g: texel 0 = (first contact, end, first body slot, end), texel 1 =
    /// (where a wide group's contacts start among the wide groups', where its body slots start,
    /// the wide groups' contacts in all, 0), x = -1 for a group within its workgroup: 4G x 2.
    pub texels: Matrix,
    /// Groups G: the dispatch's workgroups.
    pub count: usize,
    /// Contacts and body slots of the wide groups in all: what their state takes in storage.
    pub wide: (usize, usize),
}

impl FactorSystem {
    /// The workgroups' groups ([`island_groups`]) of islands of `islands` contacts and
    /// `factors.island_bodies` bodies, `slots` contact places in all.
    pub fn groups(islands: &[usize], factors: &ContactFactors, slots: usize) -> Vec<Group> {
        let sizes: Vec<(usize, usize)> = islands
            .iter()
            .copied()
            .zip(factors.island_bodies.iter().copied())
            .collect();
        let limits = GroupLimits {
            pack: kernels::GROUP_PACK,
            contacts: kernels::GROUP_MAX_CONTACTS,
            bodies: kernels::GROUP_MAX_BODIES,
        };
        island_groups(&sizes, slots, limits)
    }

    /// Uploads `factors` of a system whose contacts lie as `wrap` says and whose islands have
    /// `islands` contacts each; the groups only where compute kernels run.
    pub fn upload(
        gpu: &Gpu,
        factors: &ContactFactors,
        islands: &[usize],
        wrap: ContactWrap,
    ) -> Result<Self> {
        let groups = if gpu.capabilities().compute {
            Some(IslandGroups::upload(
                gpu,
                &Self::groups(islands, factors, wrap.slots()),
            )?)
        } else {
            None
        };
        let (rows, cols) = wrap.shape(JACOBIAN_TEXELS);
        let jacobian = wrap.wrap(&factors.jacobian, JACOBIAN_TEXELS, 0.0);
        let width = factors.body_width;
        let body_wrap = ContactWrap::new(factors.body_count, width, gpu.tile_limit())?;
        let (body_rows, body_cols) = body_wrap.shape(width);
        let (v_rows, v_cols) = body_wrap.shape(2);
        Ok(FactorSystem {
            jacobian: gpu.upload(&jacobian, rows, cols)?,
            bodies: gpu.upload(
                &body_wrap.wrap(&factors.bodies, width, -1.0),
                body_rows,
                body_cols,
            )?,
            body_width: width,
            velocities: Layout::new(v_rows, v_cols, gpu.tile_limit() as u32)?,
            regularisation: factors.regularisation,
            colours: factors.colours,
            groups,
        })
    }
}

impl IslandGroups {
    /// `groups` as the dispatch reads them.
    fn upload(gpu: &Gpu, groups: &[Group]) -> Result<Self> {
        // Where each wide group's contacts and bodies start among the wide groups' (-1: not wide).
        let (mut contacts, mut bodies) = (0, 0);
        let places: Vec<[f32; 2]> = groups
            .iter()
            .map(|g| {
                if !g.wide {
                    return [-1.0, 0.0];
                }
                let place = [contacts as f32, bodies as f32];
                contacts += g.contacts.1 - g.contacts.0;
                bodies += g.bodies.1 - g.bodies.0;
                place
            })
            .collect();
        // Row-major 4G x 2: texel row g's four rows, each the two texels' values side by side.
        let mut texels = Vec::with_capacity(8 * groups.len());
        for (g, place) in groups.iter().zip(&places) {
            let range = [g.contacts.0, g.contacts.1, g.bodies.0, g.bodies.1].map(|v| v as f32);
            let wide = [place[0], place[1], contacts as f32, 0.0];
            texels.extend(range.into_iter().zip(wide).flat_map(|(a, b)| [a, b]));
        }
        Ok(IslandGroups {
            texels: gpu.upload(&texels, 4 * groups.len(), 2)?,
            count: groups.len(),
            wide: (contacts, bodies),
        })
    }
}

/// What one workgroup takes: groups share a workgroup while they hold at most `pack` contacts
/// (one per thread); a group within `contacts` contacts and `bodies` bodies keeps its state in
/// the workgroup, an island past them is a wide group of its own.
#[derive(Debug, Clone, Copy)]
pub struct GroupLimits {
    /// Contacts small islands fill a group up to.
    pub pack: usize,
    /// Contacts of a group within the workgroup at most.
    pub contacts: usize,
    /// Bodies of a group within the workgroup at most.
    pub bodies: usize,
}

/// One workgroup's share of the contacts: whole islands, their contacts and body slots each
/// one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// First contact, end.
    pub contacts: (usize, usize),
    /// First body slot, end.
    pub bodies: (usize, usize),
    /// Whether it is one island past the workgroup's limits, its state in storage.
    pub wide: bool,
}

/// Consecutive islands (`islands`: (contacts, bodies) of each, in order) as workgroups'
/// groups: small islands share a group while it holds at most `limits.pack` contacts, a larger
/// island has one of its own, wide where it is past the limits. The wrap's padding places past
/// the contacts (up to `slots`) count as islands without bodies.
pub fn island_groups(islands: &[(usize, usize)], slots: usize, limits: GroupLimits) -> Vec<Group> {
    let padding = slots - islands.iter().map(|i| i.0).sum::<usize>();
    let max = limits.contacts;
    let pads = (0..padding.div_ceil(max)).map(|g| (max.min(padding - g * max), 0));
    let mut groups: Vec<Group> = Vec::new();
    let (mut end, mut end_body) = (0, 0);
    for (size, bodies) in islands.iter().copied().chain(pads) {
        let wide = size > max || bodies > limits.bodies;
        match groups.last_mut() {
            Some(g)
                if !wide
                    && !g.wide
                    && end + size - g.contacts.0 <= limits.pack
                    && end_body + bodies - g.bodies.0 <= limits.bodies =>
            {
                g.contacts.1 = end + size;
                g.bodies.1 = end_body + bodies;
            }
            _ => groups.push(Group {
                contacts: (end, end + size),
                bodies: (end_body, end_body + bodies),
                wide,
            }),
        }
        end += size;
        end_body += bodies;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::{island_groups, Group, GroupLimits};

    /// The groups as `[first contact, end, first body, end, wide]`.
    fn plain(groups: Vec<Group>) -> Vec<[usize; 5]> {
        groups
            .iter()
            .map(|g| {
                let (c, b) = (g.contacts, g.bodies);
                [c.0, c.1, b.0, b.1, usize::from(g.wide)]
            })
            .collect()
    }

    #[test]
    fn islands_pack_into_workgroups() {
        // Small islands share a group up to `pack` contacts, a large one has its own, padding
        // places are islands without bodies; a group's bodies stay within the limit too; an
        // island past the limits is a wide group of its own, shared with no other.
        let limits = GroupLimits {
            pack: 8,
            contacts: 10,
            bodies: 4,
        };
        let islands = [(3, 2), (4, 1), (2, 2), (9, 3), (1, 2), (1, 2), (1, 1)];
        assert_eq!(
            plain(island_groups(&islands, 23, limits)),
            [
                [0, 7, 0, 3, 0],
                [7, 9, 3, 5, 0],
                [9, 18, 5, 8, 0],
                [18, 20, 8, 12, 0],
                [20, 23, 12, 13, 0]
            ]
        );
        let wide = island_groups(&[(3, 1), (11, 1), (2, 1), (1, 5), (1, 1)], 18, limits);
        assert_eq!(
            plain(wide),
            [
                [0, 3, 0, 1, 0],
                [3, 14, 1, 2, 1],
                [14, 16, 2, 3, 0],
                [16, 17, 3, 8, 1],
                [17, 18, 8, 9, 0]
            ]
        );
        let padding = island_groups(&[(5, 1)], 30, limits);
        assert_eq!(
            plain(padding),
            [
                [0, 5, 0, 1, 0],
                [5, 15, 1, 1, 0],
                [15, 25, 1, 1, 0],
                [25, 30, 1, 1, 0]
            ]
        );
    }
}
