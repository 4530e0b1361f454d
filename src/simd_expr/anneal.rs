//! The transformation stage of the SIMD-optimization paper (spec §1.3): search the equivalent expressions
//! `P A P^T x + P b` for the cheapest, by the paper's simulated annealing (Fig. 4) over
//! (i,j)-swaps, started from structured candidates and restarted, as §1.7 asks.
//!
//! ```text
//! E <- start                                  the candidates: identity, stride s
//! repeat until the moves are spent:           (stride 2 = red-black, stride n = slabs)
//!     repeat moves_per_step times:
//!         E' <- E with positions i, j swapped             (a)  i, j in different quadruples
//!         dC <- C(E') - C(E)                              (b)
//!         p  <- min(1, exp(-dC / kT))                     (c)
//!         if random(0,1) < p: E <- E'                     (d)
//!     T <- decay * T                                      (e)  geometric, t0 down to t_end
//! output the best E seen
//! ```

use super::cost::{CostModel, Objective};
use super::expr::{check_permutation, LinearExpr};
use crate::error::Result;
use crate::order::order_by;
use crate::reference::Rng;

/// The control parameters of Fig. 4 (the paper gives no values; these are texla's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// The first temperature T.
    pub t0: f64,
    /// The last temperature; the decay rate is chosen so that T reaches it with the last move.
    pub t_end: f64,
    /// Moves tried at each temperature ("not yet in equilibrium").
    pub moves_per_step: usize,
    /// Boltzmann's constant k: an uphill move of dC is taken with probability exp(-dC / kT).
    pub k: f64,
}

impl Default for Schedule {
    /// T from 1.5 to 0.05 (an uphill step of 1 is taken half the time at the start, almost never
    /// at the end), 100 moves per temperature, k = 1.
    fn default() -> Self {
        Schedule {
            t0: 1.5,
            t_end: 0.05,
            moves_per_step: 100,
            k: 1.0,
        }
    }
}

/// How many annealing runs [`LinearExpr::optimize`] shares its moves among.
pub const RESTARTS: usize = 8;

/// The most strides tried as candidates (plus the slab stride n = ceil(m / 4)).
const MAX_STRIDE: usize = 64;

/// What [`LinearExpr::optimize_for`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimized {
    /// The cost of the best equivalent expression.
    pub cost: usize,
    /// Its permutation, relative to the expression optimised (an argument for
    /// [`LinearExpr::permute`]).
    pub permutation: Vec<usize>,
    /// Where it came from: a candidate's name ("identity", "stride 10") or "annealed from ...".
    pub found_by: String,
    /// The annealing curves (the paper's Fig. 8): for each of the [`RESTARTS`] runs, where it
    /// started and its current cost before its first move, after every
    /// [`Schedule::moves_per_step`] moves and at its end.
    pub curves: Vec<(String, Vec<usize>)>,
}

/// The stride-`s` order of `0..m`: the indices `i` sorted by `(i mod s, i div s)`. Stride 2 is
/// red-black (`0, 2, 4, .. | 1, 3, 5, ..`); stride `n = m / 4` packs quadruple `a` with
/// `{a, a + n, a + 2n, a + 3n}` (the slabs of the paper's 3D solver, §1.7).
pub fn stride_permutation(m: usize, s: usize) -> Vec<usize> {
    order_by(m, |i| ((i % s) as u64) << 32 | (i / s) as u64)
}

/// The structured starting candidates for an expression of size `m` (spec §1.7): the identity,
/// then stride `s` for `s = 2..=min(m / 2, 64)` and the slab stride `ceil(m / 4)`.
pub fn candidates(m: usize) -> Vec<(String, Vec<usize>)> {
    let mut out = vec![("identity".to_string(), (0..m).collect())];
    let mut strides: Vec<usize> = (2..=(m / 2).min(MAX_STRIDE)).collect();
    let slab = m.div_ceil(4);
    if slab >= 2 && slab < m && !strides.contains(&slab) {
        strides.push(slab);
    }
    for s in strides {
        out.push((format!("stride {s}"), stride_permutation(m, s)));
    }
    out
}

/// `position[perm[p]] = p`.
fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut position = vec![0; perm.len()];
    for (p, &r) in perm.iter().enumerate() {
        position[r] = p;
    }
    position
}

/// A uniformly random permutation of `0..m` (Fisher-Yates).
fn random_permutation(m: usize, rng: &mut Rng) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..m).collect();
    for k in (1..m).rev() {
        let j = ((k + 1) as f64 * rng.next_f64()) as usize;
        perm.swap(k, j.min(k));
    }
    perm
}

/// Fig. 4 from `start` for `moves` moves on `model`; returns the best (cost, permutation) and
/// pushes the current cost onto `curve` before the first move, at each temperature step and at
/// the end.
fn anneal_model(
    model: &mut CostModel,
    start: &[usize],
    moves: usize,
    schedule: &Schedule,
    objective: Objective,
    rng: &mut Rng,
    curve: &mut Vec<usize>,
) -> (usize, Vec<usize>) {
    let m = model.size();
    let mut perm = start.to_vec();
    let mut position = inverse(&perm);
    let mut cost = model.cost(&position, objective);
    let mut best = (cost, perm.clone());
    curve.push(cost);
    // Swapping two positions of one quadruple permutes the rows and columns inside blocks,
    // which changes no c_C and no r_R: only swaps across quadruples are moves.
    if m <= 4 || moves == 0 {
        return best;
    }
    let per_step = schedule.moves_per_step.max(1);
    let steps = moves.div_ceil(per_step) as f64;
    let decay = (schedule.t_end / schedule.t0).powf(1.0 / steps.max(1.0));
    let mut t = schedule.t0;
    for step in 0..moves {
        if step > 0 && step % per_step == 0 {
            t *= decay; // (e)
            curve.push(cost);
        }
        // (a) a random (i,j)-swap across quadruples.
        let p = (m as f64 * rng.next_f64()) as usize;
        let q = loop {
            let q = (m as f64 * rng.next_f64()) as usize;
            if q / 4 != p / 4 {
                break q;
            }
        };
        perm.swap(p, q);
        position[perm[p]] = p;
        position[perm[q]] = q;
        // (b), (c), (d)
        let new_cost = model.cost(&position, objective);
        let delta = new_cost as f64 - cost as f64;
        let accept = (-delta / (schedule.k * t)).exp().min(1.0);
        if rng.next_f64() < accept {
            cost = new_cost;
            if cost < best.0 {
                best = (cost, perm.clone());
            }
        } else {
            perm.swap(p, q);
            position[perm[p]] = p;
            position[perm[q]] = q;
        }
    }
    curve.push(cost);
    best
}

impl LinearExpr {
    /// Simulated annealing (Fig. 4) from the equivalent expression `start` (a permutation, as
    /// for [`LinearExpr::permute`]) for `moves` (i,j)-swaps; returns the cheapest expression
    /// seen as (cost, permutation). Fails with [`Error::Argument`](crate::error::Error) when
    /// `start` is not a permutation of `0..m`.
    pub fn anneal(
        &self,
        start: &[usize],
        moves: usize,
        schedule: &Schedule,
        objective: Objective,
        rng: &mut Rng,
    ) -> Result<(usize, Vec<usize>)> {
        check_permutation(start, self.size())?;
        let mut model = CostModel::new(self);
        Ok(anneal_model(
            &mut model,
            start,
            moves,
            schedule,
            objective,
            rng,
            &mut Vec::new(),
        ))
    }

    /// The cheapest equivalent expression found (spec §1.3, §1.7) for `C(E)`, as (cost,
    /// permutation): see [`LinearExpr::optimize_for`]. Deterministic for a seed.
    pub fn optimize(&self, seed: u32, moves: usize) -> (usize, Vec<usize>) {
        let found = self.optimize_for(Objective::Plain, seed, moves);
        (found.cost, found.permutation)
    }

    /// The cheapest equivalent expression found for `objective`: every structured candidate
    /// ([`candidates`]) is costed, then [`RESTARTS`] annealing runs of `moves / RESTARTS` moves
    /// each (default [`Schedule`]) start from the identity (run 0), the best candidate (odd runs)
    /// and random permutations (the others); the cheapest wins, the first found on a tie.
    /// Deterministic for a seed (texla's mulberry32, [`Rng`]).
    pub fn optimize_for(&self, objective: Objective, seed: u32, moves: usize) -> Optimized {
        let m = self.size();
        let mut model = CostModel::new(self);
        let mut best: Option<Optimized> = None;
        let mut keep = |cost: usize, permutation: Vec<usize>, found_by: String| {
            if best.as_ref().is_none_or(|b| cost < b.cost) {
                best = Some(Optimized {
                    cost,
                    permutation,
                    found_by,
                    curves: Vec::new(),
                });
            }
        };
        let mut best_candidate = (usize::MAX, Vec::new(), String::new());
        for (name, perm) in candidates(m) {
            let cost = model.cost(&inverse(&perm), objective);
            if cost < best_candidate.0 {
                best_candidate = (cost, perm.clone(), name.clone());
            }
            keep(cost, perm, name);
        }
        let mut rng = Rng::new(seed);
        let schedule = Schedule::default();
        let per_run = moves / RESTARTS;
        let mut curves = Vec::new();
        for run in 0..RESTARTS {
            // Run 0 from the identity, odd runs from the best candidate, the others from
            // random permutations.
            let (start, from) = match run {
                0 => ((0..m).collect(), "identity".to_string()),
                r if r % 2 == 1 => (best_candidate.1.clone(), best_candidate.2.clone()),
                r => (random_permutation(m, &mut rng), format!("random start {r}")),
            };
            let mut curve = Vec::new();
            let (cost, perm) = anneal_model(
                &mut model, &start, per_run, &schedule, objective, &mut rng, &mut curve,
            );
            curves.push((from.clone(), curve));
            keep(cost, perm, format!("annealed from {from}"));
        }
        let mut best = best.expect("the identity is always a candidate");
        best.curves = curves;
        best
    }
}
