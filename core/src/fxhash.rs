//! A fast hasher for the solver's in-memory caches (the "Fx" function of rustc-hash: one
//! rotate, xor and multiply per word).
//!
//! The caches are keyed by interned ids and requirement sets, hashed once or more per pod;
//! with the standard SipHash that hashing alone was ~9 % of a 100,000-pod pass. Nothing
//! depends on iteration order (the standard hasher is randomly seeded, so nothing could), and
//! the tool runs offline on its user's own input, so flooding resistance buys nothing here.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_work_and_hash_is_stable() {
        let mut m: FxHashMap<(u32, String), usize> = FxHashMap::default();
        for i in 0..1000u32 {
            m.insert((i, format!("k{i}")), i as usize);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get(&(7, "k7".to_string())), Some(&7));
        let h = |v: &[u8]| {
            let mut x = FxHasher::default();
            x.write(v);
            x.finish()
        };
        assert_eq!(h(b"abc"), h(b"abc"));
        assert_ne!(h(b"abc"), h(b"abd"));
        assert_ne!(h(b"a"), h(b"a\0"));
    }
}
