//! Which execution indices one JVM runs when a session is cut into chunks.
//!
//! A sampling strategy's schedule for execution `i` depends only on the seed, `i` and what it
//! learned earlier in the same chunk of [`ChunkPlan::chunk`] executions, so a session's
//! schedules never depend on how many JVMs run it. One JVM may run several chunks, one after the
//! other (a JVM start and the JIT's warm-up cost more than a hundred executions of a small
//! program): chunks `first`, `first + stride`, `first + 2 stride`, … below `end`, each from its
//! start with a fresh strategy. The CLI hands the plan to the agent; both read it here.

/// The chunks one JVM runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkPlan {
    /// The first execution of the JVM's first chunk (a multiple of `chunk`).
    pub first: u64,
    /// Executions per chunk.
    pub chunk: u64,
    /// From one of the JVM's chunks to its next (a multiple of `chunk`, at least `chunk`).
    pub stride: u64,
    /// The session's budget: no execution at or after it.
    pub end: u64,
}

impl ChunkPlan {
    /// A plan, or why the numbers do not make one.
    pub fn new(first: u64, chunk: u64, stride: u64, end: u64) -> Result<ChunkPlan, String> {
        if chunk == 0 || stride < chunk || stride % chunk != 0 || first % chunk != 0 {
            return Err(format!(
                "chunks of {chunk} from {first} every {stride}: the stride must be a nonzero \
                 multiple of the chunk, and the first execution a chunk's start"
            ));
        }
        Ok(ChunkPlan {
            first,
            chunk,
            stride,
            end,
        })
    }

    /// The start of the chunk execution `index` lies in.
    pub fn chunk_start(&self, index: u64) -> u64 {
        index - index % self.chunk
    }

    /// Whether the JVM runs execution `index`.
    pub fn contains(&self, index: u64) -> bool {
        index >= self.first
            && index < self.end
            && (self.chunk_start(index) - self.first) % self.stride == 0
    }

    /// The first chunk start of the plan after the chunk of `index`.
    fn next_chunk(&self, index: u64) -> Option<u64> {
        let start = self.chunk_start(index.max(self.first));
        let behind = (start - self.first) % self.stride;
        let next = start - behind + self.stride;
        (next < self.end).then_some(next)
    }

    /// The execution after `index`: the next one of its chunk, or (when the chunk is done, or
    /// `chunk_over`: its strategy wants no more, or it gave up on the program) the next chunk's
    /// start. `None` when the plan has no more.
    pub fn after(&self, index: u64, chunk_over: bool) -> Option<u64> {
        let next = index + 1;
        if !chunk_over && next < self.end && self.chunk_start(next) == self.chunk_start(index) {
            return Some(next);
        }
        self.next_chunk(index)
    }

    /// How many executions the plan holds.
    pub fn len(&self) -> u64 {
        let mut n = 0;
        let mut start = self.first;
        while start < self.end {
            n += self.chunk.min(self.end - start);
            start += self.stride;
        }
        n
    }

    /// Whether the plan holds no execution.
    pub fn is_empty(&self) -> bool {
        self.first >= self.end
    }

    /// The `k`-th execution of the plan (0-based), when every chunk runs whole.
    pub fn nth(&self, k: u64) -> Option<u64> {
        let index = self.first + (k / self.chunk) * self.stride + k % self.chunk;
        (index < self.end).then_some(index)
    }

    /// The agent option text: `first-execution`, `chunk`, `stride`, `end`.
    pub fn options(&self) -> [(&'static str, String); 4] {
        [
            ("first-execution", self.first.to_string()),
            ("chunk", self.chunk.to_string()),
            ("stride", self.stride.to_string()),
            ("end", self.end.to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(plan: &ChunkPlan) -> Vec<u64> {
        let mut out = vec![];
        let mut at = Some(plan.first).filter(|&f| f < plan.end);
        while let Some(i) = at {
            out.push(i);
            at = plan.after(i, false);
        }
        out
    }

    #[test]
    fn one_jvm_runs_every_chunk_in_order() {
        let plan = ChunkPlan::new(0, 3, 3, 8).unwrap();
        assert_eq!(walk(&plan), (0..8).collect::<Vec<_>>());
        assert_eq!(plan.len(), 8);
    }

    #[test]
    fn workers_take_every_other_chunk_and_together_cover_the_budget() {
        let a = ChunkPlan::new(0, 3, 6, 11).unwrap();
        let b = ChunkPlan::new(3, 3, 6, 11).unwrap();
        assert_eq!(walk(&a), vec![0, 1, 2, 6, 7, 8]);
        assert_eq!(walk(&b), vec![3, 4, 5, 9, 10]);
        assert_eq!((a.len(), b.len()), (6, 5));
        for i in 0..11 {
            assert!(a.contains(i) != b.contains(i), "{i} in exactly one plan");
            let k = walk(&a).iter().position(|&x| x == i);
            if let Some(k) = k {
                assert_eq!(a.nth(k as u64), Some(i));
            }
        }
        assert_eq!(a.nth(6), None);
    }

    #[test]
    fn a_chunk_over_early_goes_on_at_the_next_chunk() {
        let plan = ChunkPlan::new(0, 4, 8, 20).unwrap();
        assert_eq!(plan.after(1, true), Some(8));
        assert_eq!(plan.after(9, true), Some(16));
        assert_eq!(plan.after(17, true), None);
        assert_eq!(plan.after(3, false), Some(8));
    }

    #[test]
    fn nonsense_is_refused() {
        assert!(ChunkPlan::new(0, 0, 0, 5).is_err());
        assert!(ChunkPlan::new(0, 4, 6, 5).is_err());
        assert!(ChunkPlan::new(2, 4, 4, 5).is_err());
        assert!(ChunkPlan::new(4, 4, 4, 2).unwrap().is_empty());
    }
}
