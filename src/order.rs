//! One sort for the whole crate: [`order_by`] gives indices in the order of a `u64` key, ties
//! by index (what a stable sort gives). Every ordering in texla goes through it, so the wasm
//! carries one instance of the standard library's sort rather than one per call site (each
//! instance is several KB).

/// `0..n` ordered by `key(i)`, ties in index order.
pub fn order_by(n: usize, key: impl Fn(usize) -> u64) -> Vec<usize> {
    let mut keyed: Vec<(u64, usize)> = (0..n).map(|i| (key(i), i)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The distinct `values`, ascending (in place of a `BTreeSet`, whose `collect` brings a sort
/// of its own).
pub fn distinct(values: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let values: Vec<usize> = values.into_iter().collect();
    let mut out: Vec<usize> = (order_by(values.len(), |i| values[i] as u64).into_iter())
        .map(|i| values[i])
        .collect();
    out.dedup();
    out
}

/// A key of `x` whose `u64` order is `f64::total_cmp`'s.
pub fn f64_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_a_stable_sort_and_f64_keys_keep_total_order() {
        let keys = [3, 1, 3, 0, 1];
        assert_eq!(order_by(keys.len(), |i| keys[i]), [3, 1, 4, 0, 2]);
        let xs = [
            f64::NEG_INFINITY,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            7.0,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(f64_key(w[0]) < f64_key(w[1]), "{w:?}");
        }
    }
}
