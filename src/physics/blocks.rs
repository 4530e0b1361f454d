//! The non-zero 3 x 3 blocks of the contact LCP's A = J M^-1 J^T, row by row.
//!
//! A_ij is non-zero only where contacts i and j share a moving body, so a contact's row holds
//! its neighbours' blocks and nothing else: about 28 blocks per contact for the standing wall,
//! whatever the number of walls. [`Rows`] computes one row at a time from J: the GPU layout
//! writes each row straight into its float32 texture data and never holds A in float64 (at 100
//! walls that would be 85 MB a frame). The float64 solvers keep all rows as [`Blocks`],
//! compressed rows in three flat vectors that a product streams through in order:
//!
//! ```text
//!   start:   0        3           7     ...      C + 1 entries: row i is start[i] .. start[i + 1]
//!   column:  i j  j'  i' j j' j''         ...      the contact of each block: i itself first,
//!   value:   A_ii A_ij ...                          then its neighbours ascending
//! ```

use glam::DVec3;

use super::jacobian::{Jacobian, Side};

/// A 3 x 3 block of A: rows and columns are (normal, tangent 1, tangent 2).
pub type Block = [[f64; 3]; 3];

/// Relative regularisation of the diagonal (constraint force mixing): keeps A positive
/// definite when contacts are redundant (4 corners of a face on a rigid body).
pub(super) const REGULARISATION: f64 = 1e-3;

/// Computes A's rows from J, one at a time: A_ij = sum over the moving bodies k that i and j
/// share of s_i s_j (e_i . e_j / m_k + (I_k^-1 (r_i x e_i)) . (r_j x e_j)), the bodies' terms
/// added in ascending k, and the diagonal blocks' own diagonal raised by [`REGULARISATION`].
/// Row i is the merge of the contact lists of its one or two bodies, so no block is looked up
/// in a map.
pub(super) struct Rows<'a> {
    jacobian: &'a Jacobian,
    directions: &'a [[DVec3; 3]],
    /// Body k's contacts are touching[first[k] .. first[k + 1]].
    first: Vec<usize>,
    /// The contacts touching each body, in contact order.
    touching: Vec<Touch>,
}

/// A contact as one of its bodies sees it.
#[derive(Clone, Copy)]
struct Touch {
    contact: usize,
    /// The sign of its impulse on the body.
    sign: f64,
    /// Its lever arms r x e about the body's centre.
    arms: [DVec3; 3],
}

/// Contact `i` as the body of `side` sees it.
fn touch(i: usize, side: &Side) -> Touch {
    Touch {
        contact: i,
        sign: side.sign,
        arms: side.arms,
    }
}

/// Row i's contact on one of its bodies: what the body's term in each block of the row needs.
#[derive(Clone, Copy)]
struct Own {
    /// 1 / the body's mass.
    inv_mass: f64,
    touch: Touch,
    /// I^-1 (r x e) of the contact's three directions.
    turned: [DVec3; 3],
}

impl Own {
    fn new(jacobian: &Jacobian, i: usize, side: &Side) -> Self {
        let (inv_mass, inv_inertia) = jacobian.inverse(side.body);
        Own {
            inv_mass,
            touch: touch(i, side),
            turned: side.arms.map(|arm| *inv_inertia * arm),
        }
    }

    /// Adds to A_ij this body's term, `t` contact j's touch of it, `dots` the products
    /// e_i . e_j of the two contacts' directions ([`dots`]):
    /// s_i s_j ((e_i . e_j) / m + (I^-1 (r_i x e_i)) . (r_j x e_j)).
    fn add(&self, block: &mut Block, dots: &Block, t: &Touch) {
        for (r, (line, dots)) in block.iter_mut().zip(dots).enumerate() {
            for (col, (v, dot)) in line.iter_mut().zip(dots).enumerate() {
                let lin = dot * self.inv_mass;
                *v += self.touch.sign * t.sign * (lin + self.turned[r].dot(t.arms[col]));
            }
        }
    }
}

/// e_i[r] . e_j[col] for the directions of two contacts.
fn dots(e_i: &[DVec3; 3], e_j: &[DVec3; 3]) -> Block {
    e_i.map(|e| e_j.map(|f| e.dot(f)))
}

/// Raises the diagonal of A_ii.
fn regularise(block: &mut Block) {
    for (r, line) in block.iter_mut().enumerate() {
        line[r] *= 1.0 + REGULARISATION;
    }
}

/// The diagonal of A_ii alone, as [`Rows::row`] computes it (the same sums, in the same
/// order), for the contacts of `jacobian` (unit `directions`, normal first).
pub(super) fn diagonal(jacobian: &Jacobian, directions: &[[DVec3; 3]], i: usize) -> [f64; 3] {
    let e = &directions[i];
    let mut diagonal = [0.0; 3];
    for side in jacobian.sides(i) {
        let (inv_mass, inv_inertia) = jacobian.inverse(side.body);
        for (r, (d, arm)) in diagonal.iter_mut().zip(&side.arms).enumerate() {
            let lin = e[r].dot(e[r]) * inv_mass;
            *d += side.sign * side.sign * (lin + (*inv_inertia * *arm).dot(*arm));
        }
    }
    diagonal.map(|d| d * (1.0 + REGULARISATION))
}

/// The off-diagonal of A_ii, (n t1, n t2, t1 t2), summed as [`diagonal`] sums its diagonal:
/// what a contact's Gauss-Seidel step needs besides its diagonal.
pub(super) fn off_diagonal(jacobian: &Jacobian, directions: &[[DVec3; 3]], i: usize) -> [f64; 3] {
    let e = &directions[i];
    let mut off = [0.0; 3];
    for side in jacobian.sides(i) {
        let (inv_mass, inv_inertia) = jacobian.inverse(side.body);
        for (o, (r, c)) in off.iter_mut().zip([(0, 1), (0, 2), (1, 2)]) {
            let lin = e[r].dot(e[c]) * inv_mass;
            *o += side.sign * side.sign * (lin + (*inv_inertia * side.arms[r]).dot(side.arms[c]));
        }
    }
    off
}

/// One body of the contact whose row is being built, and how far the merge has read the
/// contacts touching it.
struct Cursor<'a> {
    list: &'a [Touch],
    own: Own,
    at: usize,
}

impl Cursor<'_> {
    /// The contact the merge reads next from this body's list.
    fn next(&self) -> Option<usize> {
        self.list.get(self.at).map(|t| t.contact)
    }
}

impl<'a> Rows<'a> {
    /// The rows of the contacts of `jacobian`, whose unit `directions` (normal first) it was
    /// built with.
    pub fn new(jacobian: &'a Jacobian, directions: &'a [[DVec3; 3]]) -> Self {
        let (contacts, bodies) = (jacobian.contacts(), jacobian.bodies());
        let mut first = vec![0; bodies + 1];
        for i in 0..contacts {
            for side in jacobian.sides(i) {
                first[side.body + 1] += 1;
            }
        }
        for k in 0..bodies {
            first[k + 1] += first[k];
        }
        let mut next = first.clone();
        let empty = Touch {
            contact: 0,
            sign: 0.0,
            arms: [DVec3::ZERO; 3],
        };
        let mut touching = vec![empty; first[bodies]];
        for i in 0..contacts {
            for side in jacobian.sides(i) {
                touching[next[side.body]] = touch(i, side);
                next[side.body] += 1;
            }
        }
        Rows {
            jacobian,
            directions,
            first,
            touching,
        }
    }

    /// Contact `i`'s one or two bodies, in ascending order, the merge at their start.
    fn cursors(&self, i: usize) -> [Option<Cursor<'_>>; 2] {
        let mut own = [None, None];
        for (cursor, side) in own.iter_mut().zip(self.jacobian.sides(i)) {
            *cursor = Some(Cursor {
                list: &self.touching[self.first[side.body]..self.first[side.body + 1]],
                own: Own::new(self.jacobian, i, side),
                at: 0,
            });
        }
        own
    }

    /// Blocks in row `i`: the contacts sharing a moving body with contact i, i included.
    pub fn len(&self, i: usize) -> usize {
        match self.cursors(i) {
            [Some(a), Some(b)] => {
                let shared = a
                    .list
                    .iter()
                    .filter(|t| {
                        b.list
                            .binary_search_by_key(&t.contact, |u| u.contact)
                            .is_ok()
                    })
                    .count();
                a.list.len() + b.list.len() - shared
            }
            [Some(a), None] => a.list.len(),
            _ => 0,
        }
    }

    /// Row `i` into `columns` (the contacts j: i first, then ascending) and `values` (A_ij),
    /// both emptied first.
    pub fn row(&self, i: usize, columns: &mut Vec<usize>, values: &mut Vec<Block>) {
        columns.clear();
        values.clear();
        let mut own = self.cursors(i);
        let e = self.directions;
        // The contacts of one face's manifold lie side by side and share their directions
        // (the tangents are a function of the normal): their products e_i . e_j are computed
        // once.
        let mut last = (i, dots(&e[i], &e[i]));
        // The merge: the next neighbour j is the smallest contact left in either list.
        while let Some(j) = own.iter().flatten().filter_map(Cursor::next).min() {
            if e[j][0] != e[last.0][0] {
                last = (j, dots(&e[i], &e[j]));
            }
            let mut block = [[0.0; 3]; 3];
            for own in own.iter_mut().flatten() {
                if let Some(t) = own.list.get(own.at).filter(|t| t.contact == j) {
                    own.at += 1;
                    own.own.add(&mut block, &last.1, t);
                }
            }
            if j == i {
                regularise(&mut block);
            }
            columns.push(j);
            values.push(block);
        }
        // The diagonal block first, its neighbours after it in ascending order.
        let diagonal = columns.partition_point(|&j| j < i);
        columns[..=diagonal].rotate_right(1);
        values[..=diagonal].rotate_right(1);
    }
}

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

impl Blocks {
    /// Every row of `rows`.
    pub(super) fn assemble(rows: &Rows) -> Self {
        let contacts = rows.jacobian.contacts();
        let mut blocks = Blocks {
            start: Vec::with_capacity(contacts + 1),
            ..Blocks::default()
        };
        blocks.start.push(0);
        let (mut columns, mut values) = (Vec::new(), Vec::new());
        for i in 0..contacts {
            rows.row(i, &mut columns, &mut values);
            blocks.column.extend_from_slice(&columns);
            blocks.value.extend_from_slice(&values);
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
