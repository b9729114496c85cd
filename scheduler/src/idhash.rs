//! A cheap hasher for integer keys (ids, site ids, JVM method pointers).
//!
//! The standard library's SipHash resists hash flooding, which keys chosen by rankcheck itself do
//! not need; on the per-scheduling-point path it showed up at several percent of a
//! synchronization-heavy run. One multiply per word spreads the key into the high bits, which
//! hashbrown uses for its control bytes.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of integer words (not for keys an adversary chooses).
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// A `HashMap` keyed by integers, hashed with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A `HashSet` of integers, hashed with [`IdHasher`].
pub type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_behave_like_std_maps() {
        let mut m: IdMap<i64, u32> = IdMap::default();
        for i in -500..500i64 {
            m.insert(i << 20, i as u32);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m.get(&(-3i64 << 20)), Some(&(-3i32 as u32)));
        assert_eq!(m.get(&1), None);
    }

    #[test]
    fn byte_writes_and_word_writes_agree_on_one_word() {
        let (mut a, mut b) = (IdHasher::default(), IdHasher::default());
        a.write(&7u64.to_le_bytes());
        b.write_u64(7);
        assert_eq!(a.finish(), b.finish());
    }
}
