//! [`Registry`]: one GPU's matrices by id, of both kinds, so that a page can name them (arrays
//! of matrices passed from JavaScript), the budget can find those to move out, and a restore
//! can reach them all.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicU32, Ordering};

use super::state::Resident;
use crate::gpu::DdMatrix;
use crate::hash::Map;
use crate::matrix::Matrix;

/// One matrix's record, shared by its handle and the registry.
pub type Shared<T, C> = Rc<RefCell<Resident<T, C>>>;

/// Ids of matrices, unique across GPUs, so that one GPU finds no matrix of another.
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A matrix of either kind: float32, with kept copies `C32`, or float-float, with kept copies
/// `C64`. Cloning shares the record.
pub enum Handle<C32, C64> {
    /// One float32 texture.
    Float32(Shared<Matrix, C32>),
    /// A float-float pair.
    FloatFloat(Shared<DdMatrix, C64>),
}

impl<C32, C64> Handle<C32, C64> {
    /// A float32 matrix's handle.
    pub fn float32(m: Resident<Matrix, C32>) -> Self {
        Handle::Float32(Rc::new(RefCell::new(m)))
    }

    /// A float-float matrix's handle.
    pub fn float_float(m: Resident<DdMatrix, C64>) -> Self {
        Handle::FloatFloat(Rc::new(RefCell::new(m)))
    }
}

impl<C32, C64> Clone for Handle<C32, C64> {
    fn clone(&self) -> Self {
        match self {
            Handle::Float32(m) => Handle::Float32(m.clone()),
            Handle::FloatFloat(m) => Handle::FloatFloat(m.clone()),
        }
    }
}

/// What the registry holds of a matrix: it does not keep it alive.
enum Entry<C32, C64> {
    Float32(Weak<RefCell<Resident<Matrix, C32>>>),
    FloatFloat(Weak<RefCell<Resident<DdMatrix, C64>>>),
}

impl<C32, C64> Entry<C32, C64> {
    fn upgrade(&self) -> Option<Handle<C32, C64>> {
        Some(match self {
            Entry::Float32(m) => Handle::Float32(m.upgrade()?),
            Entry::FloatFloat(m) => Handle::FloatFloat(m.upgrade()?),
        })
    }

    fn alive(&self) -> bool {
        match self {
            Entry::Float32(m) => m.strong_count() > 0,
            Entry::FloatFloat(m) => m.strong_count() > 0,
        }
    }
}

/// One GPU's matrices by id, and its open scopes.
pub struct Registry<C32, C64> {
    entries: RefCell<Map<u32, Entry<C32, C64>>>,
    /// The open scopes, innermost last: each holds the matrices made while it was the
    /// innermost, by id (see [`Registry::open_scope`]).
    scopes: RefCell<Vec<Scope<C32, C64>>>,
}

/// An open scope: its number, and the matrices made in it.
struct Scope<C32, C64> {
    number: u32,
    made: Vec<(u32, Handle<C32, C64>)>,
}

impl<C32, C64> Default for Registry<C32, C64> {
    fn default() -> Self {
        Registry {
            entries: RefCell::new(Map::default()),
            scopes: RefCell::new(Vec::new()),
        }
    }
}

impl<C32, C64> Registry<C32, C64> {
    /// Records `matrix` and gives its id (matrices dropped since are forgotten from time to
    /// time).
    pub fn add(&self, matrix: &Handle<C32, C64>) -> u32 {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.entries.borrow_mut();
        if entries.len() >= 64 && entries.len().is_power_of_two() {
            entries.retain(|_, e| e.alive());
        }
        let entry = match matrix {
            Handle::Float32(m) => Entry::Float32(Rc::downgrade(m)),
            Handle::FloatFloat(m) => Entry::FloatFloat(Rc::downgrade(m)),
        };
        entries.insert(id, entry);
        if let Some(scope) = self.scopes.borrow_mut().last_mut() {
            scope.made.push((id, matrix.clone()));
        }
        id
    }

    /// Opens a scope: every matrix made from now until [`Registry::close_scope`] (in a scope
    /// opened since, the innermost) is recorded in it. Its number, for closing it.
    pub fn open_scope(&self) -> u32 {
        let number = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let made = Vec::new();
        self.scopes.borrow_mut().push(Scope { number, made });
        number
    }

    /// Closes scope `number`: the matrices made in it whose ids `keep` accepts move to the
    /// scope around it (if any); the others are given back, to be freed. A scope closed out of
    /// order (async scopes that overlapped) is taken from where it is; an unknown number gives
    /// nothing.
    pub fn close_scope(&self, number: u32, keep: impl Fn(u32) -> bool) -> Vec<Handle<C32, C64>> {
        let mut scopes = self.scopes.borrow_mut();
        let Some(at) = scopes.iter().position(|s| s.number == number) else {
            return Vec::new();
        };
        let scope = scopes.remove(at);
        let (kept, gone): (Vec<_>, Vec<_>) = scope.made.into_iter().partition(|(id, _)| keep(*id));
        if let Some(outer) = at.checked_sub(1).and_then(|i| scopes.get_mut(i)) {
            outer.made.extend(kept);
        }
        gone.into_iter().map(|(_, m)| m).collect()
    }

    /// How many scopes are open, and how many matrices they hold.
    pub fn scoped(&self) -> (usize, usize) {
        let scopes = self.scopes.borrow();
        (scopes.len(), scopes.iter().map(|s| s.made.len()).sum())
    }

    /// How many matrices of either kind are held (by the page or a scope) and not freed or
    /// lost.
    pub fn live(&self) -> usize {
        (self.entries.borrow().values())
            .filter_map(Entry::upgrade)
            .filter(|m| match m {
                Handle::Float32(m) => m.borrow().usable().is_ok(),
                Handle::FloatFloat(m) => m.borrow().usable().is_ok(),
            })
            .count()
    }

    /// The matrix of `id`, if it is this GPU's and still held.
    pub fn get(&self, id: u32) -> Option<Handle<C32, C64>> {
        self.entries.borrow().get(&id)?.upgrade()
    }

    /// The float32 matrices still held: those the budget may move out.
    pub fn float32(&self) -> Vec<Shared<Matrix, C32>> {
        (self.entries.borrow().values())
            .filter_map(|e| match e {
                Entry::Float32(m) => m.upgrade(),
                Entry::FloatFloat(_) => None,
            })
            .collect()
    }

    /// After the GPU was lost and a new one of `generation` opened: every matrix of an older
    /// one learns that its texture went (see [`Resident::catch_up`]). How many come back from a
    /// copy, and how many are lost.
    pub fn restore(&self, generation: u64) -> (u32, u32) {
        let matrices: Vec<_> = (self.entries.borrow().values())
            .filter_map(Entry::upgrade)
            .collect();
        let (mut restored, mut lost) = (0, 0);
        for matrix in matrices {
            let outcome = match matrix {
                Handle::Float32(m) => m.borrow_mut().catch_up(generation),
                Handle::FloatFloat(m) => m.borrow_mut().catch_up(generation),
            };
            match outcome {
                Some(true) => restored += 1,
                Some(false) => lost += 1,
                None => {}
            }
        }
        (restored, lost)
    }
}
