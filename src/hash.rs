//! The hasher of texla's hash maps ([`Map`], [`Set`]): their keys are texla's own (matrix ids,
//! pipeline keys, uniform bytes), never an attacker's, so std's SipHash with random keys buys
//! nothing, and its code cost the wasm 1.7 KB (0.6 KB gzipped). What std's maps do
//! with their entries stays the same; no map of texla's depends on its iteration order (the
//! budget orders by last use, each a distinct tick).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A hash map with [`Words`] for a hasher.
pub type Map<K, V> = HashMap<K, V, BuildHasherDefault<Words>>;
/// A hash set with [`Words`] for a hasher.
pub type Set<T> = HashSet<T, BuildHasherDefault<Words>>;

/// FxHash's step (rustc's hasher), eight bytes at a time: the uniform blocks of the pipeline
/// caches' keys are 160 bytes, hashed on every pass.
#[derive(Default)]
pub struct Words(u64);

impl Words {
    fn add(&mut self, word: u64) {
        self.0 = mix(self.0, word);
    }
}

/// `hash` with `word` mixed in: FxHash's multiply-rotate step, also what the wall hashes its
/// islands' body pairs with (`physics::lcp`).
pub fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95)
}

impl Hasher for Words {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, i: u32) {
        self.add(i.into());
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_find_what_they_hold() {
        let mut map = Map::default();
        for id in 0..1000u32 {
            map.insert(id, id * 2);
        }
        assert!((0..1000u32).all(|id| map[&id] == id * 2));
        let mut bytes: Map<Vec<u8>, usize> = Map::default();
        for n in 0..40 {
            bytes.insert(vec![7; n], n);
        }
        assert!((0..40).all(|n| bytes[&vec![7; n]] == n));
        assert_eq!(Set::from_iter([3u32, 3, 4]).len(), 2);
    }
}
