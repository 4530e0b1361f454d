//! The non-zero 3 x 3 blocks of the contact LCP's A = J M^-1 J^T, row by row.
//!
//! A_ij is non-zero only where contacts i and j share a moving body, so a contact's row holds
//! its neighbours' blocks and nothing else: about 28 blocks per contact for the standing wall,
//! whatever the number of walls. They lie in compressed rows, three flat vectors, so that
//! building them allocates three times per frame and a product streams through them in order:
//!
//! ```text
//!   start:   0        3           7     ...      C + 1 entries: row i is start[i] .. start[i + 1]
//!   column:  i j  j'  i' j j' j''         ...      the contact of each block: i itself first,
//!   value:   A_ii A_ij ...                          then its neighbours ascending
//! ```

use glam::{DMat3, DVec3};

use super::body::Body;
use super::contact::Contact;

/// A 3 x 3 block of A: rows and columns are (normal, tangent 1, tangent 2).
pub type Block = [[f64; 3]; 3];

/// Relative regularisation of the diagonal (constraint force mixing): keeps A positive
/// definite when contacts are redundant (4 corners of a face on a rigid body).
pub(super) const REGULARISATION: f64 = 1e-3;

/// The blocks of A in compressed rows (see the module's diagram).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Blocks {
    /// Where each row starts in `column` and `value`, and where the last ends.
    start: Vec<usize>,
    /// The contact j of each block.
    column: Vec<usize>,
    /// Each block A_ij.
    value: Vec<Block>,
}

/// One contact as one body sees it: which contact, the sign its impulse acts on the body with,
/// and the lever arms r x e of its three directions about the body's centre.
#[derive(Clone, Copy)]
struct Touch {
    contact: usize,
    sign: f64,
    arms: [DVec3; 3],
}

/// One body of the contact whose row is being built.
struct Side<'a> {
    body: usize,
    /// The contacts touching the body.
    list: &'a [Touch],
    inv_mass: f64,
    /// The sign of the row's contact on the body.
    sign: f64,
    /// I^-1 (r x e) of the row's contact's three directions.
    turned: [DVec3; 3],
    /// How far the merge has read `list`.
    at: usize,
}

impl Side<'_> {
    /// The contact the merge reads next from this body's list.
    fn next(&self) -> Option<usize> {
        self.list.get(self.at).map(|t| t.contact)
    }
}

/// The moving bodies of contact `c` with the sign of its impulse on each: a pushed along the
/// normal, b against it.
fn sides(c: &Contact) -> impl Iterator<Item = (usize, f64)> {
    [Some((c.a, 1.0)), c.b.map(|b| (b, -1.0))]
        .into_iter()
        .flatten()
}

impl Blocks {
    /// The blocks of `contacts` (unit `directions`, normal first) among `bodies`:
    /// A_ij = sum over the moving bodies k that i and j share of s_i s_j (e_i . e_j / m_k +
    /// (I_k^-1 (r_i x e_i)) . (r_j x e_j)), the bodies' terms added in ascending k, and the
    /// diagonal blocks' own diagonal raised by [`REGULARISATION`]. Each row is the merge of
    /// the contact lists of its one or two bodies, so no block is looked up in a map.
    pub fn assemble(bodies: &[Body], contacts: &[Contact], directions: &[[DVec3; 3]]) -> Self {
        // The contacts touching each body, in contact order: body k's are touching[first[k]
        // .. first[k + 1]].
        let mut first = vec![0; bodies.len() + 1];
        for (k, _) in contacts.iter().flat_map(sides) {
            first[k + 1] += 1;
        }
        for k in 0..bodies.len() {
            first[k + 1] += first[k];
        }
        let mut next = first.clone();
        let empty = Touch {
            contact: 0,
            sign: 0.0,
            arms: [DVec3::ZERO; 3],
        };
        let mut touching = vec![empty; first[bodies.len()]];
        for (i, c) in contacts.iter().enumerate() {
            for (k, sign) in sides(c) {
                let r = c.point - bodies[k].position;
                touching[next[k]] = Touch {
                    contact: i,
                    sign,
                    arms: directions[i].map(|e| r.cross(e)),
                };
                next[k] += 1;
            }
        }
        let inertia: Vec<DMat3> = bodies.iter().map(Body::inv_inertia_world).collect();
        // Each body's n contacts give at most n^2 blocks (fewer where two share both bodies).
        let most = (0..bodies.len())
            .map(|k| (first[k + 1] - first[k]).pow(2))
            .sum();
        let mut blocks = Blocks {
            start: Vec::with_capacity(contacts.len() + 1),
            column: Vec::with_capacity(most),
            value: Vec::with_capacity(most),
        };
        blocks.start.push(0);
        for (i, c) in contacts.iter().enumerate() {
            // Contact i's one or two bodies, by index.
            let mut own: [Option<Side>; 2] = [None, None];
            for (slot, (k, sign)) in own.iter_mut().zip(sides(c)) {
                let r = c.point - bodies[k].position;
                *slot = Some(Side {
                    body: k,
                    list: &touching[first[k]..first[k + 1]],
                    inv_mass: bodies[k].inv_mass,
                    sign,
                    turned: directions[i].map(|e| inertia[k] * r.cross(e)),
                    at: 0,
                });
            }
            if let [Some(a), Some(b)] = &own {
                if b.body < a.body {
                    own.swap(0, 1);
                }
            }
            let row = blocks.column.len();
            // Merge the lists: the next neighbour j is the smallest contact left in either.
            while let Some(j) = own.iter().flatten().filter_map(Side::next).min() {
                let mut block = [[0.0; 3]; 3];
                for side in own.iter_mut().flatten() {
                    let Some(t) = side.list.get(side.at).filter(|t| t.contact == j) else {
                        continue;
                    };
                    side.at += 1;
                    for (r, line) in block.iter_mut().enumerate() {
                        for (col, v) in line.iter_mut().enumerate() {
                            let lin = directions[i][r].dot(directions[j][col]) * side.inv_mass;
                            *v += side.sign * t.sign * (lin + side.turned[r].dot(t.arms[col]));
                        }
                    }
                }
                if j == i {
                    for (r, line) in block.iter_mut().enumerate() {
                        line[r] *= 1.0 + REGULARISATION;
                    }
                }
                blocks.column.push(j);
                blocks.value.push(block);
            }
            // The diagonal block first, its neighbours after it in ascending order.
            let diagonal = row + blocks.column[row..].partition_point(|&j| j < i);
            blocks.column[row..=diagonal].rotate_right(1);
            blocks.value[row..=diagonal].rotate_right(1);
            blocks.start.push(blocks.column.len());
        }
        blocks
    }

    /// Rows: one per contact.
    pub fn rows(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Row `i`: the contacts j of its blocks (i first) and the blocks A_ij.
    pub fn row(&self, i: usize) -> (&[usize], &[Block]) {
        let range = self.start[i]..self.start[i + 1];
        (&self.column[range.clone()], &self.value[range])
    }

    /// A_ii.
    pub fn diagonal(&self, i: usize) -> &Block {
        &self.value[self.start[i]]
    }

    /// The most blocks in one row: K before the GPU layout rounds it up.
    pub fn widest(&self) -> usize {
        self.start
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// A x + c into `out`, `c(i)` contact i's term: one pass through the blocks in order.
    pub fn product(&self, x: &[[f64; 3]], c: impl Fn(usize) -> [f64; 3], out: &mut [[f64; 3]]) {
        for (i, w) in out.iter_mut().enumerate() {
            *w = c(i);
            let (columns, values) = self.row(i);
            for (&j, block) in columns.iter().zip(values) {
                let x = x[j];
                for (wr, line) in w.iter_mut().zip(block) {
                    *wr += line[0] * x[0] + line[1] * x[1] + line[2] * x[2];
                }
            }
        }
    }
}
