//! The contact LCP of one frame: A = J M^-1 J^T (plus a little regularisation), b from the
//! current velocities and a position-error correction, friction bounded by mu times the normal
//! impulse, and its layouts for the GPU.
//!
//! Every contact has three unknowns: the normal impulse x_n >= 0 and two friction impulses
//! |x_t| <= mu x_n along orthogonal tangents t1, t2 (a box approximation of Coulomb's cone).
//! On the GPU a contact is ONE texel, four rows: (x_n, x_t1, x_t2, 0), so the projection of a
//! whole contact happens inside one fragment:
//!
//! ```text
//!   texel row i  =  contact i  =  rows 4i .. 4i+3  =  (normal, tangent 1, tangent 2, padding)
//!
//!   dense:   A is (4C) x (4C); texel (4j + c, i) holds column c of block A_ij
//!   blocks:  A is (4C) x (4K), K = the most contacts that share a body with one contact;
//!            texel (4s + c, i) holds column c of block A_ij for j = neighbour s of i, and the
//!            neighbour texture (K/4 columns) lists j for s = 4q .. 4q+3 in its texel (q, i)
//! ```
//!
//! Blocks A_ij are zero unless contacts i and j share a moving body, so the blocks layout holds
//! exactly the non-zero part: each contact is a small sub-problem that sees only its
//! neighbours (the seed's real-time decomposition), and all of them run in one pass. This is
//! the layout of one segment: the solver wraps more contacts than one texture has rows into
//! several segments side by side (`crate::solver::ContactWrap`).

use glam::DVec3;

use std::cell::OnceCell;

use super::blocks::{self, Block, Blocks, Rows, REGULARISATION};
use super::body::Body;
use super::contact::Contact;
use super::jacobian::{Jacobian, Run};
use crate::hash::mix;
use crate::order::order_by;
use crate::solver::{self, ContactLayout};

/// How the LCP is laid out for the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One dense (4C) x (4C) matrix: every row against every column (the ShaderX2 article's 400 x 400).
    Dense,
    /// Block rows: each contact against the contacts it shares a body with; islands are the
    /// independent groups.
    Blocks,
}

/// One frame's contact LCP in float64.
#[derive(Debug, Clone)]
pub struct ContactLcp {
    /// The contacts, in the order of the unknowns.
    pub contacts: Vec<Contact>,
    /// Normal, tangent 1, tangent 2 of each contact.
    pub directions: Vec<[DVec3; 3]>,
    /// J and M^-1: A = J M^-1 J^T (+ the regularisation) without its blocks.
    pub jacobian: Jacobian,
    /// The diagonal of each A_ii (regularised).
    pub diagonal: Vec<[f64; 3]>,
    /// A's blocks in float64, built the first time a float64 solver asks ([`Self::blocks`]):
    /// a frame on the GPU never needs them.
    blocks: OnceCell<Blocks>,
    /// b of each contact: the velocity along the three directions before any impulse, minus the
    /// correction target on the normal row, m/s.
    pub b: Vec<[f64; 3]>,
    /// Coulomb friction coefficient.
    pub mu: f64,
    /// Warm start: last frame's impulses for the contacts found again, else zero, N s.
    pub x0: Vec<[f64; 3]>,
    /// Island of each contact (contacts of different islands share no moving body).
    pub island: Vec<usize>,
}

impl ContactLcp {
    /// Assembles the LCP of `contacts` for `bodies` at their current velocities. `target`
    /// gives each contact's wanted normal velocity (the position correction), `x0` the warm
    /// start. The unknowns are the contacts ordered by island (stable within one): each island
    /// is one run of contacts, which one GPU workgroup can own whole.
    pub fn assemble(
        bodies: &[Body],
        contacts: Vec<Contact>,
        target: impl Fn(&Contact) -> f64,
        mu: f64,
        x0: Vec<[f64; 3]>,
    ) -> Self {
        let roots = body_islands(bodies.len(), &contacts);
        let order = order_by(contacts.len(), |i| roots[contacts[i].a] as u64);
        let (contacts, x0): (Vec<Contact>, Vec<[f64; 3]>) =
            order.iter().map(|&i| (contacts[i], x0[i])).unzip();
        let directions: Vec<[DVec3; 3]> = contacts
            .iter()
            .map(|c| {
                let (t1, t2) = tangents(c.normal);
                [c.normal, t1, t2]
            })
            .collect();
        let b = contacts
            .iter()
            .zip(&directions)
            .map(|(c, dirs)| {
                let va = bodies[c.a].velocity_at(c.point);
                let vb = c.b.map_or(DVec3::ZERO, |k| bodies[k].velocity_at(c.point));
                let rel = va - vb;
                [
                    rel.dot(dirs[0]) - target(c),
                    rel.dot(dirs[1]),
                    rel.dot(dirs[2]),
                ]
            })
            .collect();
        let jacobian = Jacobian::new(bodies, &contacts, &directions);
        let diagonal = (0..contacts.len())
            .map(|i| blocks::diagonal(&jacobian, &directions, i))
            .collect();
        let island = contacts.iter().map(|c| roots[c.a]).collect();
        ContactLcp {
            contacts,
            directions,
            jacobian,
            diagonal,
            blocks: OnceCell::new(),
            b,
            mu,
            x0,
            island,
        }
    }

    /// Unknowns: 3 per contact (the LCP size n).
    pub fn size(&self) -> usize {
        3 * self.contacts.len()
    }

    /// LCP size of each island, largest first.
    pub fn island_sizes(&self) -> Vec<usize> {
        let runs = self.island_runs();
        order_by(runs.len(), |i| !(runs[i] as u64))
            .into_iter()
            .map(|i| 3 * runs[i])
            .collect()
    }

    /// Contacts of each island in order: [`Self::assemble`] orders the contacts by island, so
    /// each island is one run of equal `island` values.
    pub fn island_runs(&self) -> Vec<usize> {
        self.island
            .chunk_by(|a, b| a == b)
            .map(<[usize]>::len)
            .collect()
    }

    /// The default iteration count, 2n as in the seed: n is the whole LCP (dense) or the
    /// largest island (blocks), since islands are independent sub-problems.
    pub fn default_iterations(&self, mode: Mode) -> usize {
        2 * match mode {
            Mode::Dense => self.size(),
            Mode::Blocks => self.island_sizes().first().copied().unwrap_or(0),
        }
    }

    /// For each contact i, every j with a non-zero block A_ij (i itself first, then
    /// ascending), built on the first call.
    pub fn blocks(&self) -> &Blocks {
        self.blocks
            .get_or_init(|| Blocks::assemble(&Rows::new(&self.jacobian, &self.directions)))
    }

    /// w = A x + b for all contacts, through A's blocks: the float64 solvers' product.
    pub fn w(&self, x: &[[f64; 3]]) -> Vec<[f64; 3]> {
        let mut w = vec![[0.0; 3]; x.len()];
        self.blocks().product(x, |i| self.b[i], &mut w);
        w
    }

    /// A x + c(i) for each contact i of `run` into `out` (`x` and `out`: the run's; i counts
    /// all contacts), through J:
    /// A = J M^-1 J^T plus the regularisation of the diagonal, a tenth of the work of a product
    /// through A's blocks, its sums rounded differently (last bits). For the estimates of a
    /// frame, not its solve. `moved`: room for one (velocity, spin) per body.
    pub(super) fn product_through_j(
        &self,
        run: &Run,
        (x, c): (&[[f64; 3]], impl Fn(usize) -> [f64; 3]),
        out: &mut [[f64; 3]],
        moved: &mut [(DVec3, DVec3)],
    ) {
        self.jacobian.product(run, &self.directions, x, out, moved);
        let diagonal = &self.diagonal[run.contacts()];
        for (((w, d), x), i) in out.iter_mut().zip(diagonal).zip(x).zip(run.contacts()) {
            let c = c(i);
            *w = [0, 1, 2].map(|r| w[r] + SHARE * d[r] * x[r] + c[r]);
        }
    }

    /// Projects one contact's impulses onto x_n >= 0, |x_t| <= mu x_n.
    pub fn project(&self, y: [f64; 3]) -> [f64; 3] {
        let n = y[0].max(0.0);
        let limit = self.mu * n;
        [n, y[1].clamp(-limit, limit), y[2].clamp(-limit, limit)]
    }

    /// Projected Jacobi in float64, the GPU's algorithm: from the warm start, `iterations` times
    /// x <- proj(x + omega D (A x + b)), D = diag(A)^-1, omega negative (seed convention).
    pub fn solve_jacobi(&self, omega: f64, iterations: usize) -> Vec<[f64; 3]> {
        let inv = self.inverse_diagonal();
        let mut x = self.x0.clone();
        for _ in 0..iterations {
            let w = self.w(&x);
            x = (0..x.len())
                .map(|i| self.project([0, 1, 2].map(|r| x[i][r] + omega * inv[i][r] * w[i][r])))
                .collect();
        }
        x
    }

    /// 1 / diag(A) of each contact's three rows.
    fn inverse_diagonal(&self) -> Vec<[f64; 3]> {
        self.diagonal.iter().map(|d| d.map(|v| 1.0 / v)).collect()
    }

    /// The largest eigenvalue of D A (D = 1 / diag(A)), estimated island by island by
    /// `LANCZOS_STEPS` Lanczos steps on the symmetric D^1/2 A D^1/2 from a fixed start: the
    /// largest over the islands of the largest eigenvalue of each island's tridiagonal T. A Ritz
    /// value, so never above the true value (8.48 for the standing wall; 8 steps give 8.28
    /// to 8.47 there, where the 20 power iterations this replaced gave 8.01 to 8.46 for 2.5
    /// times the products). Projected Jacobi converges for steps above -2 / lambda.
    pub fn lambda_max(&self) -> f64 {
        self.island_lambdas(|_, _| None)
            .iter()
            .map(|l| l.value)
            .fold(0.0, f64::max)
    }

    /// [`Self::lambda_max`] island by island, in order: each island's estimate, made unless
    /// `kept(island, pairs)` gives one to reuse (`island`: its name in `self.island`;
    /// `pairs`: a hash of its contacts' body pairs, [`IslandLambda::pairs`]).
    pub(super) fn island_lambdas(
        &self,
        kept: impl Fn(usize, u64) -> Option<f64>,
    ) -> Vec<IslandLambda> {
        let mut root: Vec<[f64; 3]> = Vec::new();
        let mut moved = Vec::new();
        let mut lambdas = Vec::new();
        // Island by island (A has no block between two), each in the cache for all its steps.
        for run in self.jacobian.runs(&self.island_runs()) {
            let island = self.island[run.contacts().start];
            let pairs = self.contacts[run.contacts()].iter().fold(0u64, |h, c| {
                mix(mix(h, c.a as u64), c.b.map_or(usize::MAX, |b| b) as u64)
            });
            let value = match kept(island, pairs) {
                Some(value) => value,
                None => {
                    if root.is_empty() {
                        root = (self.inverse_diagonal().iter())
                            .map(|d| d.map(f64::sqrt))
                            .collect();
                        moved = vec![(DVec3::ZERO, DVec3::ZERO); self.jacobian.bodies()];
                    }
                    self.lanczos(&run, &root, &mut moved)
                }
            };
            lambdas.push(IslandLambda {
                island,
                pairs,
                value,
            });
        }
        lambdas
    }

    /// The largest eigenvalue of the tridiagonal T of [`LANCZOS_STEPS`] Lanczos steps on
    /// island `run`'s D^1/2 A D^1/2 (`root`: D^1/2 of every contact; `moved`: room for one
    /// (velocity, spin) per body).
    fn lanczos(&self, run: &Run, root: &[[f64; 3]], moved: &mut [(DVec3, DVec3)]) -> f64 {
        let root = &root[run.contacts()];
        let root = root.as_flattened();
        let diagonal = self.diagonal[run.contacts()].as_flattened();
        // A fixed start with no zero component, so that the estimate is deterministic
        // (i * 7919 % 97, reduced first: past 540,000 unknowns the product overflows a
        // 32-bit usize).
        let mut q: Vec<f64> = (3 * run.contacts().start..3 * run.contacts().end)
            .map(|i| 1.0 + ((i % 97) * (7919 % 97) % 97) as f64 / 194.0)
            .collect();
        let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        q.iter_mut().for_each(|v| *v /= norm);
        // u = D^1/2 q, what A multiplies.
        let mut u: Vec<[f64; 3]> = vec![[0.0; 3]; run.contacts().len()];
        for ((u, q), s) in u.as_flattened_mut().iter_mut().zip(&q).zip(root) {
            *u = q * s;
        }
        let mut w = u.clone();
        let mut last = vec![0.0; q.len()];
        let mut tridiagonal = Vec::with_capacity(LANCZOS_STEPS);
        let mut beta = 0.0;
        for k in 0..LANCZOS_STEPS {
            // w = S q - beta q_last, alpha = w . q, w -= alpha q: the three-term recurrence,
            // S q = D^1/2 A u; A u = J M^-1 J^T u plus the regularisation, as
            // `product_through_j` sums them (the same bits).
            self.jacobian
                .product(run, &self.directions, &u, &mut w, moved);
            let w = w.as_flattened_mut();
            let u = u.as_flattened_mut();
            let mut alpha = 0.0;
            for ((((w, s), l), q), (u, d)) in w
                .iter_mut()
                .zip(root)
                .zip(&last)
                .zip(&q)
                .zip(u.iter().zip(diagonal))
            {
                *w = (*w + SHARE * d * u) * s - beta * l;
                alpha += *w * q;
            }
            let mut square = 0.0;
            for (w, q) in w.iter_mut().zip(&q) {
                *w -= alpha * q;
                square += *w * *w;
            }
            tridiagonal.push((alpha, beta));
            beta = square.sqrt();
            // The Krylov space is whole (a small island): T's eigenvalues are exact.
            if k + 1 == LANCZOS_STEPS || beta <= 1e-12 * alpha.abs() {
                break;
            }
            std::mem::swap(&mut last, &mut q);
            for (((q, u), w), s) in q.iter_mut().zip(u.iter_mut()).zip(w.iter()).zip(root) {
                *q = w / beta;
                *u = *q * s;
            }
        }
        largest_eigenvalue(&tridiagonal)
    }

    /// Accelerated projected Jacobi in float64, the twin of the GPU's
    /// (`shaders/solvers/contact_nesterov.wgsl`, which gives the formulas): from the warm
    /// start, `iterations` times extrapolate each contact along its last change (Nesterov's
    /// momentum with FISTA's schedule), step by `step` D (A y + b) and project; a contact whose
    /// step turns back against its change restarts its momentum. With `step` = -1 /
    /// [`Self::lambda_max`], 80 iterations hold the standing wall at rest in float32, where
    /// projected Jacobi needs 700 (README, The collapsing wall).
    pub fn solve_nesterov(&self, step: f64, iterations: usize) -> Vec<[f64; 3]> {
        let inv = self.inverse_diagonal();
        let mut x = self.x0.clone();
        let mut prev = x.clone();
        // Each contact's momentum counter: 0 makes the first extrapolation y = x0.
        let mut t = vec![0.0f64; x.len()];
        for _ in 0..iterations {
            let mut advanced = t.clone();
            let y: Vec<[f64; 3]> = (0..x.len())
                .map(|i| {
                    advanced[i] = 0.5 * (1.0 + (1.0 + 4.0 * t[i] * t[i]).sqrt());
                    let beta = (t[i] - 1.0) / advanced[i];
                    [0, 1, 2].map(|r| x[i][r] + beta * (x[i][r] - prev[i][r]))
                })
                .collect();
            let w = self.w(&y);
            let next: Vec<[f64; 3]> = (0..x.len())
                .map(|i| self.project([0, 1, 2].map(|r| y[i][r] + step * inv[i][r] * w[i][r])))
                .collect();
            for i in 0..x.len() {
                let turned: f64 = (0..3)
                    .map(|r| (y[i][r] - next[i][r]) * (next[i][r] - x[i][r]))
                    .sum();
                t[i] = if turned > 0.0 { 1.0 } else { advanced[i] };
            }
            prev = std::mem::replace(&mut x, next);
        }
        x
    }

    /// The colour of each contact and the number of colours: contacts of one colour share no
    /// moving body ([`solver::contact_colours`]), the order the GPU's Gauss-Seidel passes
    /// take them in.
    pub fn colours(&self) -> (Vec<u32>, usize) {
        let pairs = self.contacts.iter().map(|c| (Some(c.a), c.b));
        solver::contact_colours(pairs, self.jacobian.bodies())
    }

    /// Graph-coloured projected Gauss-Seidel in float64, the GPU's algorithm
    /// (`shaders/solvers/contact_gauss_seidel.wgsl` gives the formulas): from the warm start,
    /// `iterations` sweeps over the colours; each contact of a colour takes the new impulses of
    /// every contact before it (contacts of one colour share no body, so the order within a
    /// colour does not matter) and solves its own 3 x 3 block row by row: the normal impulse,
    /// then each friction impulse within mu times the new normal one.
    pub fn solve_gauss_seidel(&self, iterations: usize) -> Vec<[f64; 3]> {
        self.gauss_seidel_sweeps(self.x0.clone(), iterations)
    }

    /// `iterations` Gauss-Seidel sweeps from the impulses `x`.
    pub fn gauss_seidel_sweeps(&self, mut x: Vec<[f64; 3]>, iterations: usize) -> Vec<[f64; 3]> {
        let (colours, _) = self.colours();
        let order = order_by(self.contacts.len(), |i| colours[i] as u64);
        let blocks = self.blocks();
        for _ in 0..iterations {
            for &i in &order {
                let (columns, values) = blocks.row(i);
                let mut w = self.b[i];
                for (&j, block) in columns.iter().zip(values) {
                    for (wr, line) in w.iter_mut().zip(block) {
                        *wr += line[0] * x[j][0] + line[1] * x[j][1] + line[2] * x[j][2];
                    }
                }
                x[i] = self.gauss_seidel_step(x[i], w, &values[0]);
            }
        }
        x
    }

    /// One contact's Gauss-Seidel step from its impulses `x`, w = (A x + b) of its rows and its
    /// own block A_ii (i first in its row): row by row, each row's w updated by the changes
    /// before it.
    fn gauss_seidel_step(&self, mut x: [f64; 3], mut w: [f64; 3], own: &Block) -> [f64; 3] {
        for r in 0..3 {
            let limit = self.mu * x[0];
            let new = x[r] - w[r] / own[r][r];
            let new = if r == 0 {
                new.max(0.0)
            } else {
                new.clamp(-limit, limit)
            };
            let change = new - x[r];
            x[r] = new;
            for (wq, line) in w.iter_mut().zip(own) {
                *wq += line[r] * change;
            }
        }
        x
    }

    /// How far `x` is from solving the LCP: the largest |x - proj(x - (Ax + b))| over all rows,
    /// which is |min(x_n, w_n)| on normal rows; zero exactly at a solution, m/s. A x through J
    /// (every frame's statistics).
    pub fn residual(&self, x: &[[f64; 3]]) -> f64 {
        let mut w = vec![[0.0; 3]; x.len()];
        let mut moved = vec![(DVec3::ZERO, DVec3::ZERO); self.jacobian.bodies()];
        for run in self.jacobian.runs(&self.island_runs()) {
            let (x, w) = (&x[run.contacts()], &mut w[run.contacts()]);
            self.product_through_j(&run, (x, |i| self.b[i]), w, &mut moved);
        }
        x.iter()
            .zip(&w)
            .map(|(x, w)| {
                let p = self.project([0, 1, 2].map(|r| x[r] - w[r]));
                (0..3).map(|r| (x[r] - p[r]).abs()).fold(0.0, f64::max)
            })
            .fold(0.0, f64::max)
    }

    /// The dense (3C) x (3C) matrix A, row-major, unknowns in contact order (n, t1, t2).
    pub fn dense(&self) -> Vec<f64> {
        let n = self.size();
        let mut a = vec![0.0; n * n];
        let blocks = self.blocks();
        for i in 0..blocks.rows() {
            let (columns, values) = blocks.row(i);
            for (j, block) in columns.iter().zip(values) {
                for r in 0..3 {
                    for c in 0..3 {
                        a[(3 * i + r) * n + 3 * j + c] = block[r][c];
                    }
                }
            }
        }
        a
    }

    /// The textures of the GPU kernel in `mode`.
    pub fn gpu_layout(&self, mode: Mode) -> ContactLayout {
        let contacts = self.contacts.len();
        let rows = 4 * contacts;
        // A's rows straight from J into float32, one at a time.
        let a = Rows::new(&self.jacobian, &self.directions);
        let count = match mode {
            Mode::Dense => contacts,
            Mode::Blocks => {
                (0..contacts)
                    .map(|i| a.len(i))
                    .max()
                    .unwrap_or(0)
                    .div_ceil(4)
                    * 4
            }
        };
        let width = 4 * count;
        // Contact after contact, its 4 rows of the matrix and of the neighbour lists are
        // written in a small buffer, then appended: the large vectors are written once, in
        // order, and never cleared first.
        let mut matrix = Vec::with_capacity(rows * width);
        let mut neighbours = (mode == Mode::Blocks).then(|| Vec::with_capacity(rows * count / 4));
        let (mut lines, mut lists) = (vec![0.0f32; 4 * width], vec![-1.0f32; count]);
        let (mut columns, mut values) = (Vec::new(), Vec::new());
        for i in 0..contacts {
            a.row(i, &mut columns, &mut values);
            for (s, (&j, block)) in columns.iter().zip(&values).enumerate() {
                let slot = if mode == Mode::Dense { j } else { s };
                for (r, line) in block.iter().enumerate() {
                    let at = r * width + 4 * slot;
                    for (m, v) in lines[at..at + 3].iter_mut().zip(line) {
                        *m = *v as f32;
                    }
                }
                lists[(s % 4) * (count / 4) + s / 4] = j as f32;
            }
            matrix.extend_from_slice(&lines);
            lines.fill(0.0);
            if let Some(list) = neighbours.as_mut() {
                list.extend_from_slice(&lists);
            }
            lists.fill(-1.0);
        }
        ContactLayout {
            width,
            matrix,
            neighbours,
            count,
            // Projected Jacobi reads mu beside A's rows (the other solvers take it as a number).
            mu: (0..contacts)
                .flat_map(|_| [self.mu as f32, 0.0, 0.0, 0.0])
                .collect(),
            ..self.vectors_layout()
        }
    }

    /// The layout's per-contact vectors (b, 1 / diag(A), the warm start) and islands, with no
    /// matrix and no mu: the part every layout shares.
    pub(super) fn vectors_layout(&self) -> ContactLayout {
        let contacts = self.contacts.len();
        // Vectors of 4 rows per contact: its three values and a zero.
        let per_row = |f: &dyn Fn(usize) -> [f64; 3]| -> Vec<f32> {
            (0..contacts)
                .flat_map(|i| {
                    let [n, t1, t2] = f(i);
                    [n as f32, t1 as f32, t2 as f32, 0.0]
                })
                .collect()
        };
        let inverse = self.inverse_diagonal();
        ContactLayout {
            rows: 4 * contacts,
            width: 0,
            matrix: Vec::new(),
            neighbours: None,
            count: 0,
            islands: self.island_runs(),
            factors: None,
            b: per_row(&|i| self.b[i]),
            inv_diag: per_row(&|i| inverse[i]),
            mu: Vec::new(),
            x0: per_row(&|i| self.x0[i]),
        }
    }
}

/// One island's estimate of lambda_max(DA) ([`ContactLcp::island_lambdas`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct IslandLambda {
    /// The island's name in [`ContactLcp::island`] (its root body).
    pub(super) island: usize,
    /// A hash of its contacts' body pairs (a, b) in order: the same pairs hash alike in every
    /// run.
    pub(super) pairs: u64,
    /// The estimate.
    pub(super) value: f64,
}

/// The regularisation's part of A's regularised diagonal: A = J M^-1 J^T + SHARE diag(A).
const SHARE: f64 = REGULARISATION / (1.0 + REGULARISATION);

/// Lanczos steps of [`ContactLcp::lambda_max`] per island: fewer estimate lambda too low for
/// the wall's frames (6 steps: up to 3.5% below the 20 power iterations they replaced), more
/// add little (12 steps: within 1% of the true value).
const LANCZOS_STEPS: usize = 8;

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha_k` and
/// off-diagonal `beta_k` (between rows k - 1 and k; `beta_0` unused), given as
/// `(alpha_k, beta_k)`: bisection on Sylvester's count of eigenvalues below a shift, within
/// Gershgorin's bounds.
fn largest_eigenvalue(t: &[(f64, f64)]) -> f64 {
    let off = |k: usize| if k == 0 { 0.0 } else { t[k].1.abs() };
    let reach = |k: usize| off(k) + if k + 1 < t.len() { off(k + 1) } else { 0.0 };
    let mut hi = (0..t.len()).map(|k| t[k].0 + reach(k)).fold(0.0, f64::max);
    let mut lo = (0..t.len()).map(|k| t[k].0 - reach(k)).fold(hi, f64::min);
    // Eigenvalues of T below x: the negative pivots of T - x I's LDL^T.
    let below = |x: f64| {
        let mut d = 1.0;
        let mut count = 0;
        for (k, &(alpha, beta)) in t.iter().enumerate() {
            d = alpha - x - if k == 0 { 0.0 } else { beta * beta / d };
            if d == 0.0 {
                d = f64::MIN_POSITIVE;
            }
            count += usize::from(d < 0.0);
        }
        count
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) < t.len() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Two unit tangents completing `n` to a right-handed orthonormal basis, chosen the same way
/// for the same normal (so warm-started friction keeps its meaning).
pub fn tangents(n: DVec3) -> (DVec3, DVec3) {
    let helper = if n.x.abs() < 0.57 { DVec3::X } else { DVec3::Z };
    let t1 = n.cross(helper).normalize();
    (t1, n.cross(t1))
}

/// Island of each body: the smallest index of the moving bodies it is connected to through
/// `contacts` (the ground joins nothing).
pub(super) fn body_islands(bodies: usize, contacts: &[Contact]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..bodies).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for c in contacts {
        if let Some(b) = c.b {
            let (ra, rb) = (root(&mut parent, c.a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    (0..bodies).map(|i| root(&mut parent, i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tridiagonal eigenvalue: [[2, 1], [1, 2]] has 3 and 1; 1, 2, 3 uncoupled has 3; the
    /// path graph of 4 with 2 on the diagonal has 2 + 2 cos(pi / 5).
    #[test]
    fn largest_eigenvalue_of_a_tridiagonal() {
        let close = |t: &[(f64, f64)], want: f64| {
            let got = largest_eigenvalue(t);
            assert!((got - want).abs() <= 1e-14 * want, "{got} against {want}");
        };
        close(&[(2.0, 0.0), (2.0, 1.0)], 3.0);
        close(&[(1.0, 0.0), (3.0, 0.0), (2.0, 0.0)], 3.0);
        let path = [(2.0, 0.0), (2.0, -1.0), (2.0, 1.0), (2.0, 1.0)];
        close(&path, 2.0 + 2.0 * (std::f64::consts::PI / 5.0).cos());
    }
}
