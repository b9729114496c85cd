//! One part of an exhaustive enumeration split N ways, so that N processes (a batch engine's
//! shards) together run exactly the schedules one process would.
//!
//! The first execution of an enumeration is every part's; the alternatives it queues are
//! numbered in the order it queues them (their *cells*), and cell `k` with everything that
//! descends from it belongs to part `k mod N` (icb, mcr). A subtree's schedules depend only on
//! the execution that queued it, so the parts are disjoint and together are the whole search.
//! RankChecker's Algorithm 1 deals out its variable sets the same way (cell `k`: the `k`-th
//! set it takes, after the preparatory runs every part makes).

use std::fmt;

/// Part `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    pub index: u32,
    pub count: u32,
}

impl Partition {
    /// `I/N` with 1 ≤ I ≤ N (the shard numbering people use).
    pub fn parse(text: &str) -> Result<Partition, String> {
        let bad = || format!("a partition is I/N with 1 <= I <= N, not {text:?}");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (i, n) = (
            i.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if n == 0 || i == 0 || i > n {
            return Err(bad());
        }
        Ok(Partition {
            index: i - 1,
            count: n,
        })
    }

    /// Whether cell `cell` (and its subtree) is this part's.
    pub fn owns(&self, cell: u64) -> bool {
        cell % u64::from(self.count) == u64::from(self.index)
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_parse_one_based_and_own_every_cell_once() {
        assert_eq!(
            Partition::parse("2/4"),
            Ok(Partition { index: 1, count: 4 })
        );
        for bad in ["0/4", "5/4", "1/0", "x/2", "3"] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
        let parts: Vec<Partition> = (1..=3)
            .map(|i| Partition::parse(&format!("{i}/3")).unwrap())
            .collect();
        for cell in 0..20 {
            assert_eq!(parts.iter().filter(|p| p.owns(cell)).count(), 1);
        }
        assert_eq!(parts[2].to_string(), "3/3");
    }
}
