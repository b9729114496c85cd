//! A sparse bit set for points-to sets: a sorted list of (block index, 64-bit word) pairs.
//!
//! Why hand-written: points-to sets are mostly tiny (a handful of objects) while the object
//! universe holds tens of thousands of abstract objects, so a dense bit vector per variable
//! (`fixedbitset`) would cost kilobytes per variable, and a sorted `Vec<u32>` makes the unions
//! of the few large sets slow. Sorted 64-bit blocks stay small for small sets and union word by
//! word for large ones, which is all the solver needs (insert, union returning the new bits,
//! iterate).

/// A set of `u32`, stored as sorted blocks of 64 bits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SparseBitSet {
    blocks: Vec<(u32, u64)>,
}

impl SparseBitSet {
    pub fn new() -> Self {
        SparseBitSet { blocks: Vec::new() }
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.1.count_ones() as usize).sum()
    }

    pub fn contains(&self, x: u32) -> bool {
        let (block, bit) = (x >> 6, x & 63);
        match self.blocks.binary_search_by_key(&block, |b| b.0) {
            Ok(i) => self.blocks[i].1 & (1u64 << bit) != 0,
            Err(_) => false,
        }
    }

    /// Adds `x`; true if it was not there.
    pub fn insert(&mut self, x: u32) -> bool {
        let (block, bit) = (x >> 6, 1u64 << (x & 63));
        // Elements mostly arrive in increasing order (filtering, iteration): append fast.
        match self.blocks.last_mut() {
            None => {
                self.blocks.push((block, bit));
                return true;
            }
            Some(last) if last.0 < block => {
                self.blocks.push((block, bit));
                return true;
            }
            Some(last) if last.0 == block => {
                let had = last.1 & bit != 0;
                last.1 |= bit;
                return !had;
            }
            _ => {}
        }
        match self.blocks.binary_search_by_key(&block, |b| b.0) {
            Ok(i) => {
                let had = self.blocks[i].1 & bit != 0;
                self.blocks[i].1 |= bit;
                !had
            }
            Err(i) => {
                self.blocks.insert(i, (block, bit));
                true
            }
        }
    }

    /// Adds every element of `other`; returns the elements that were new (empty if none).
    pub fn union_new(&mut self, other: &SparseBitSet) -> SparseBitSet {
        let mut added = SparseBitSet::new();
        if other.blocks.is_empty() {
            return added;
        }
        let mut merged = Vec::with_capacity(self.blocks.len().max(other.blocks.len()));
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.blocks, &other.blocks);
        while i < a.len() || j < b.len() {
            if j == b.len() || (i < a.len() && a[i].0 < b[j].0) {
                merged.push(a[i]);
                i += 1;
            } else if i == a.len() || b[j].0 < a[i].0 {
                merged.push(b[j]);
                added.blocks.push(b[j]);
                j += 1;
            } else {
                let new = b[j].1 & !a[i].1;
                if new != 0 {
                    added.blocks.push((a[i].0, new));
                }
                merged.push((a[i].0, a[i].1 | b[j].1));
                i += 1;
                j += 1;
            }
        }
        if !added.blocks.is_empty() {
            self.blocks = merged;
        }
        added
    }

    /// Adds every element of `other`; true if anything was new.
    pub fn union_with(&mut self, other: &SparseBitSet) -> bool {
        !self.union_new(other).is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.blocks.iter().flat_map(|&(block, mut word)| {
            std::iter::from_fn(move || {
                if word == 0 {
                    return None;
                }
                let bit = word.trailing_zeros();
                word &= word - 1;
                Some(block << 6 | bit)
            })
        })
    }

    /// Heap bytes used, for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<(u32, u64)>()
    }
}

impl FromIterator<u32> for SparseBitSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut s = SparseBitSet::new();
        for x in iter {
            s.insert(x);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn behaves_like_a_btreeset() {
        // A fixed pseudo-random sequence (xorshift) so the test is deterministic.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 5000) as u32
        };
        for _ in 0..50 {
            let xs: Vec<u32> = (0..40).map(|_| next()).collect();
            let ys: Vec<u32> = (0..40).map(|_| next()).collect();
            let mut a: SparseBitSet = xs.iter().copied().collect();
            let b: SparseBitSet = ys.iter().copied().collect();
            let sa: BTreeSet<u32> = xs.iter().copied().collect();
            let sb: BTreeSet<u32> = ys.iter().copied().collect();
            assert_eq!(
                a.iter().collect::<Vec<_>>(),
                sa.iter().copied().collect::<Vec<_>>()
            );
            let added = a.union_new(&b);
            let expect_added: Vec<u32> = sb.difference(&sa).copied().collect();
            assert_eq!(added.iter().collect::<Vec<_>>(), expect_added);
            let union: Vec<u32> = sa.union(&sb).copied().collect();
            assert_eq!(a.iter().collect::<Vec<_>>(), union);
            assert_eq!(a.len(), union.len());
            assert!(!a.union_with(&b), "second union adds nothing");
            for x in 0..5000 {
                assert_eq!(a.contains(x), sa.contains(&x) || sb.contains(&x));
            }
        }
    }

    #[test]
    fn insert_reports_novelty() {
        let mut s = SparseBitSet::new();
        assert!(s.insert(70));
        assert!(!s.insert(70));
        assert!(s.insert(3));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 70]);
    }
}
