//! The residency's moves, natively, on a fake GPU whose textures are shared vectors: the live
//! bytes are those of the textures still held, and every upload and read-back is counted.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use super::*;
use crate::error::{Error, Result};
use crate::gpu::{DdMatrix, LocalFuture};
use crate::layout::Layout;
use crate::matrix::Matrix;

/// A fake texture: its values, shared by its clones.
#[derive(Clone, Debug)]
struct Tex(Rc<Vec<f32>>);

impl OnGpu for Tex {
    type Elem = f32;
}

/// A fake float-float pair.
#[derive(Clone, Debug)]
struct Pair(Rc<Vec<f64>>);

impl OnGpu for Pair {
    type Elem = f64;
}

/// A fake GPU: the textures it made (still held or not), and its uploads and read-backs.
#[derive(Default)]
struct Fake {
    textures: RefCell<Vec<Weak<Vec<f32>>>>,
    uploads: Cell<usize>,
    reads: Cell<usize>,
}

impl Fake {
    fn upload(&self, values: &[f32]) -> Tex {
        self.uploads.set(self.uploads.get() + 1);
        let texture = Rc::new(values.to_vec());
        self.textures.borrow_mut().push(Rc::downgrade(&texture));
        Tex(texture)
    }

    /// The upload a [`Resident::texture`] takes, from either copy.
    fn upload_copy(&self, source: Source<'_, f32, Vec<f32>>) -> Result<Tex> {
        Ok(match source {
            Source::Values(values) => self.upload(values),
            Source::Kept(kept) => self.upload(kept),
        })
    }

    /// A matrix of `values`, uploaded: with its kept copy where `keep`.
    fn matrix(&self, values: &[f32], keep: bool) -> Resident<Tex, Vec<f32>> {
        let mut m = Resident::new(self.upload(values), 1, values.len(), keep);
        m.keep(m.version(), || values.to_vec());
        m
    }
}

impl Device<Tex> for Fake {
    fn live_bytes(&self) -> usize {
        (self.textures.borrow().iter())
            .filter_map(Weak::upgrade)
            .map(|t| 4 * t.len())
            .sum()
    }

    fn pooled_bytes(&self) -> usize {
        0
    }

    fn release_pooled(&self) {}

    fn read<'a>(&'a self, texture: &'a Tex) -> LocalFuture<'a, Result<Vec<f32>>> {
        self.reads.set(self.reads.get() + 1);
        Box::pin(std::future::ready(Ok(texture.0.to_vec())))
    }
}

/// Runs a future that the fake GPU never makes wait.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("the fake GPU never waits"),
    }
}

/// Where `m` is, in a word, with which copies: "gpu", "gpu+values", "gpu+kept",
/// "gpu+values+kept", "stale", "cpu+values", ..., "freed", "lost".
fn place<T: OnGpu, C>(m: &Resident<T, C>) -> String {
    let copies = |c: &Copies<T::Elem, C>| {
        let mut s = String::new();
        if c.values.is_some() {
            s += "+values";
        }
        if c.kept.is_some() {
            s += "+kept";
        }
        s
    };
    match m.residency() {
        Residency::Gpu { copies: c, .. } => format!("gpu{}", copies(c)),
        Residency::Stale { .. } => "stale".into(),
        Residency::Cpu(c) => format!("cpu{}", copies(c)),
        Residency::Freed => "freed".into(),
        Residency::Lost => "lost".into(),
    }
}

#[test]
fn an_upload_keeps_a_copy_only_where_copies_are_kept() {
    let gpu = Fake::default();
    assert_eq!(place(&gpu.matrix(&[1.0, 2.0], true)), "gpu+kept");
    assert_eq!(place(&gpu.matrix(&[1.0, 2.0], false)), "gpu");
    // The texture of a matrix on the GPU is the one it has: no upload.
    let mut m = gpu.matrix(&[1.0, 2.0], true);
    let uploads = gpu.uploads.get();
    assert_eq!(
        m.texture(|s, _, _| gpu.upload_copy(s)).unwrap().0[..],
        [1.0, 2.0]
    );
    assert_eq!(gpu.uploads.get(), uploads);
}

#[test]
fn a_read_back_keeps_the_current_copy_once() {
    let gpu = Fake::default();
    let mut m = Resident::<Tex, Vec<f32>>::new(gpu.upload(&[3.0; 4]), 2, 2, true);
    assert_eq!(place(&m), "gpu", "computed on the GPU: no copy");
    let version = m.version();
    let values = now(gpu.read(&m.texture(|s, _, _| gpu.upload_copy(s)).unwrap())).unwrap();
    m.keep(version, || values.clone());
    assert_eq!(place(&m), "gpu+kept", "the read-back is kept");
    m.keep(version, || {
        panic!("a copy still held has these values already")
    });
    // `get`'s read-back becomes the CPU copy, which later reads serve.
    assert_eq!(m.hold(version, values), None);
    assert_eq!(place(&m), "gpu+values+kept");
    assert_eq!(m.values(), Some(&[3.0; 4][..]));
    // A read-back begun before a change is not kept.
    let before = m.version();
    m.change(gpu.upload(&[5.0; 4]));
    m.keep(before, || vec![3.0; 4]);
    assert_eq!(
        m.hold(before, vec![3.0; 4]),
        Some(vec![3.0; 4]),
        "given back"
    );
    assert_eq!(place(&m), "gpu", "the old values are not kept");
    let mut bare = Resident::<Tex, Vec<f32>>::new(gpu.upload(&[1.0]), 1, 1, false);
    bare.keep(bare.version(), || panic!("no copies kept"));
    assert_eq!(place(&bare), "gpu");
}

#[test]
fn a_change_drops_the_copies_and_gives_the_kept_one_back() {
    let gpu = Fake::default();
    let mut m = gpu.matrix(&[1.0, 2.0], true);
    m.hold(m.version(), vec![1.0, 2.0]);
    let version = m.version();
    let let_go = m.change(gpu.upload(&[2.0, 4.0]));
    assert_eq!(let_go, Some(vec![1.0, 2.0]), "for the spares");
    assert_eq!(place(&m), "gpu");
    assert_eq!(m.values(), None);
    assert!(m.version() > version);
}

#[test]
fn set_changes_the_copy_and_the_next_use_uploads_it_once() {
    let gpu = Fake::default();
    let mut m = gpu.matrix(&[1.0, 2.0, 3.0], true);
    let err = m.set(0, 9.0).unwrap_err();
    assert!(err.to_string().contains("set the element again"), "{err}");
    m.hold(m.version(), vec![1.0, 2.0, 3.0]);
    assert_eq!(
        m.set(0, 9.0).unwrap(),
        Some(vec![1.0, 2.0, 3.0]),
        "the kept copy goes"
    );
    assert_eq!(m.set(2, 7.0).unwrap(), None);
    assert_eq!(place(&m), "stale");
    assert_eq!(m.values(), Some(&[9.0, 2.0, 7.0][..]));
    assert!(m.set(3, 0.0).is_err(), "past the values");
    let uploads = gpu.uploads.get();
    let texture = m.texture(|s, _, _| gpu.upload_copy(s)).unwrap();
    assert_eq!(texture.0[..], [9.0, 2.0, 7.0], "the GPU sees both sets");
    assert_eq!(place(&m), "gpu+values", "the copy is current again");
    m.texture(|s, _, _| gpu.upload_copy(s)).unwrap();
    assert_eq!(gpu.uploads.get(), uploads + 1, "one upload");
}

#[test]
fn the_budget_moves_the_least_recently_used_out_and_they_come_back_on_use() {
    // Four matrices of 16 bytes under a budget of 32: the two used longest ago move out.
    let gpu = Fake::default();
    let values = |i: usize| vec![i as f32; 4];
    let ms: Vec<_> = (0..4)
        .map(|i| Rc::new(RefCell::new(gpu.matrix(&values(i), false))))
        .collect();
    ms[1].borrow_mut().hold(0, values(1)); // `get` made a copy: no read-back to move it out
    for i in [2, 0, 3, 1] {
        ms[i]
            .borrow_mut()
            .texture(|s, _, _| gpu.upload_copy(s))
            .unwrap();
    }
    let budget = Budget::new(32);
    assert_eq!(gpu.live_bytes(), 64);
    assert!(budget.over(&gpu), "64 bytes live");
    now(budget.evict(&gpu, ms.clone())).unwrap();
    assert_eq!(gpu.live_bytes(), 32);
    assert_eq!(budget.evictions(), 2);
    assert_eq!(gpu.reads.get(), 2, "one read-back each");
    let places: Vec<_> = ms.iter().map(|m| place(&m.borrow())).collect();
    assert_eq!(places, ["cpu+values", "gpu+values", "cpu+values", "gpu"]);
    assert!(!budget.over(&gpu), "within it");
    // The next use brings one back by one upload, with its values.
    let uploads = gpu.uploads.get();
    let texture = ms[2]
        .borrow_mut()
        .texture(|s, _, _| gpu.upload_copy(s))
        .unwrap();
    assert_eq!(texture.0[..], values(2));
    assert_eq!(gpu.uploads.get(), uploads + 1);
    assert_eq!(place(&ms[2].borrow()), "gpu+values");
    // Over it again, the least recently used now is matrix 3; matrix 1, with its copy, is next
    // and moves out with no read-back.
    drop(texture);
    now(budget.evict(&gpu, ms.clone())).unwrap();
    assert_eq!(place(&ms[3].borrow()), "cpu+values");
    assert_eq!(gpu.live_bytes(), 32);
    ms[0]
        .borrow_mut()
        .texture(|s, _, _| gpu.upload_copy(s))
        .unwrap();
    now(budget.evict(&gpu, ms.clone())).unwrap();
    assert_eq!(place(&ms[1].borrow()), "cpu+values");
    assert_eq!((budget.evictions(), gpu.reads.get()), (4, 3));
}

#[test]
fn a_stale_matrix_moves_out_with_its_set_values() {
    let gpu = Fake::default();
    let m = Rc::new(RefCell::new(gpu.matrix(&[1.0, 2.0], false)));
    m.borrow_mut().hold(0, vec![1.0, 2.0]);
    m.borrow_mut().set(1, 5.0).unwrap();
    now(Budget::new(0).evict(&gpu, vec![m.clone()])).unwrap();
    assert_eq!(
        (place(&m.borrow()), gpu.reads.get()),
        ("cpu+values".into(), 0)
    );
    let texture = m
        .borrow_mut()
        .texture(|s, _, _| gpu.upload_copy(s))
        .unwrap();
    assert_eq!(texture.0[..], [1.0, 5.0]);
}

#[test]
fn a_freed_matrix_says_so_and_lets_its_copy_go() {
    let gpu = Fake::default();
    let mut m = gpu.matrix(&[1.0], true);
    assert_eq!(m.free(), Some(vec![1.0]));
    assert_eq!(place(&m), "freed");
    let err = m.texture(|s, _, _| gpu.upload_copy(s)).unwrap_err();
    assert_eq!(err, Error::Freed);
    assert_eq!(m.restore(), None, "neither restored nor lost");
    assert_eq!(m.free(), None);
}

#[test]
fn a_loss_brings_back_what_a_copy_held_and_loses_the_rest() {
    let gpu = Fake::default();
    let mut uploaded = gpu.matrix(&[1.0, 2.0], true);
    let mut got = gpu.matrix(&[3.0], false);
    got.hold(0, vec![3.0]);
    let mut set = gpu.matrix(&[4.0], false);
    set.hold(0, vec![4.0]);
    set.set(0, 6.0).unwrap();
    let mut computed = Resident::<Tex, Vec<f32>>::new(gpu.upload(&[5.0]), 1, 1, true);
    let mut bare = gpu.matrix(&[7.0], false);
    let outcomes: Vec<_> = [&mut uploaded, &mut got, &mut set, &mut computed, &mut bare]
        .into_iter()
        .map(|m| m.restore())
        .collect();
    assert_eq!(
        outcomes,
        [Some(true), Some(true), Some(true), Some(false), Some(false)]
    );
    assert_eq!(gpu.live_bytes(), 0, "no texture of the lost GPU is held");
    assert_eq!(place(&uploaded), "cpu+kept");
    assert_eq!(computed.restore(), None, "lost once");
    let err = computed.texture(|s, _, _| gpu.upload_copy(s)).unwrap_err();
    assert_eq!(err, Error::LostMatrix);
    assert_eq!(bare.values(), None);
    for (m, want) in [(&mut uploaded, vec![1.0, 2.0]), (&mut got, vec![3.0])] {
        let texture = m.texture(|s, _, _| gpu.upload_copy(s)).unwrap();
        assert_eq!(texture.0[..], want);
    }
    assert_eq!(
        set.texture(|s, _, _| gpu.upload_copy(s)).unwrap().0[..],
        [6.0]
    );
    assert_eq!(place(&uploaded), "gpu+kept", "the copy stays current");
}

#[test]
fn a_float_float_matrix_comes_back_from_its_float64_copy() {
    let upload = |source: Source<'_, f64, Vec<f64>>, _, _| -> Result<Pair> {
        Ok(Pair(Rc::new(match source {
            Source::Values(v) => v.to_vec(),
            Source::Kept(k) => k.clone(),
        })))
    };
    let data = vec![1.0 + 2f64.powi(-40), -3.0];
    let mut m = Resident::<Pair, Vec<f64>>::new(Pair(Rc::new(data.clone())), 1, 2, true);
    m.keep(m.version(), || data.clone());
    let mut computed = Resident::<Pair, Vec<f64>>::new(Pair(Rc::new(data.clone())), 1, 2, true);
    assert_eq!((m.restore(), computed.restore()), (Some(true), Some(false)));
    assert_eq!(m.texture(upload).unwrap().0[..], data);
    assert_eq!(computed.texture(upload).unwrap_err(), Error::LostMatrix);
    assert_eq!(m.free(), Some(data));
}

#[test]
fn spare_copies_are_reused_by_length_and_capped() {
    // Copies of 8 bytes or more are kept, 24 bytes in all.
    let mut spares = Spares::<Vec<f32>>::with_limits(8, 24);
    spares.give(Some(vec![0.0]));
    assert_eq!(spares.bytes(), 0, "too small to keep");
    let two = vec![1.0, 2.0];
    let address = two.as_ptr();
    spares.give(Some(two));
    spares.give(Some(vec![0.0; 4]));
    assert_eq!(spares.bytes(), 24);
    let copy = spares.copy(&vec![5.0, 6.0]);
    assert_eq!((copy.as_ptr(), &copy[..]), (address, &[5.0, 6.0][..]));
    assert_eq!(spares.bytes(), 16, "taken by the copy of its length");
    let fresh = spares.copy(&vec![1.0; 3]);
    assert_ne!(fresh.as_ptr(), address);
    assert_eq!(spares.bytes(), 16, "no spare of length 3");
    spares.give(Some(vec![7.0; 3]));
    assert_eq!(spares.bytes(), 12, "over the cap, the oldest went");
    assert_eq!(spares.copy(&vec![0.0; 4]).len(), 4);
    assert_eq!(spares.bytes(), 12, "the length-4 spare went: none to take");
    spares.clear();
    assert_eq!(spares.bytes(), 0);
}

/// A stand-in for a texture: the registry never looks inside.
fn matrix() -> Matrix {
    Matrix {
        layout: Layout::new(1, 1, 16).unwrap(),
        owner: 0,
        texture: Rc::new(()),
    }
}

#[test]
fn the_registry_finds_matrices_by_id_and_restores_them_all() {
    let registry = Registry::<Vec<f32>, Vec<f64>>::default();
    let shared = |keep: bool| {
        let mut m = Resident::new(matrix(), 1, 1, keep);
        m.keep(0, || vec![1.0]);
        Rc::new(RefCell::new(m))
    };
    let (kept, bare) = (shared(true), shared(false));
    let pair = DdMatrix {
        hi: matrix(),
        lo: matrix(),
    };
    let float_float = Rc::new(RefCell::new(Resident::new(pair, 1, 1, true)));
    let ids = [
        registry.add(&Handle::Float32(kept.clone())),
        registry.add(&Handle::Float32(bare.clone())),
        registry.add(&Handle::FloatFloat(float_float.clone())),
    ];
    assert!(ids[0] != ids[1] && ids[1] != ids[2]);
    assert!(matches!(registry.get(ids[2]), Some(Handle::FloatFloat(_))));
    assert_eq!(registry.float32().len(), 2, "the budget's candidates");
    assert_eq!(registry.restore(1), (1, 2));
    assert_eq!(registry.restore(1), (0, 0), "each matrix once");
    drop(bare);
    assert!(
        registry.get(ids[1]).is_none(),
        "a dropped matrix is not found"
    );
    assert!(registry.get(0).is_none());
}

#[test]
fn a_scope_gives_back_what_it_did_not_keep_and_passes_the_rest_out() {
    let registry = Registry::<Vec<f32>, Vec<f64>>::default();
    let float32 = || Handle::float32(Resident::new(matrix(), 1, 1, false));
    let before = float32();
    registry.add(&before);
    let outer = registry.open_scope();
    let kept_out = float32();
    let kept_id = registry.add(&kept_out);
    let inner = registry.open_scope();
    let (a, b) = (float32(), float32());
    let a_id = registry.add(&a);
    registry.add(&b);
    assert_eq!(registry.scoped(), (2, 3));
    let gone = registry.close_scope(inner, |id| id == a_id);
    assert_eq!(gone.len(), 1, "b goes");
    assert_eq!(
        registry.scoped(),
        (1, 2),
        "a belongs to the outer scope now"
    );
    let gone = registry.close_scope(outer, |id| id == kept_id);
    assert_eq!(gone.len(), 1, "a goes with the outer scope");
    assert_eq!(registry.scoped(), (0, 0));
    assert!(
        registry.close_scope(outer, |_| false).is_empty(),
        "closed once"
    );
    assert_eq!(registry.live(), 4, "freeing is the caller's");
}
