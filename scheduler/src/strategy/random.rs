//! Random walk: at every scheduling point, an enabled thread uniformly at random
//! (ALGORITHMS.md, "Random walk"); a `notify` wakes a uniformly random waiter.

use super::api::{ExecutionSummary, Pick, Strategy, View};
use crate::ids::{ObjId, ThreadId};
use crate::rng::{RandomSource, SeededRandom};

/// The random-walk strategy. Never tires: the caller's budget ends the session.
#[derive(Clone, Debug)]
pub struct RandomWalk {
    seed: u64,
    rng: SeededRandom,
}

impl RandomWalk {
    /// A random walk whose execution `i` draws from `SeededRandom::for_execution(seed, i)`.
    pub fn new(seed: u64) -> RandomWalk {
        RandomWalk {
            seed,
            rng: SeededRandom::for_execution(seed, 0),
        }
    }
}

impl Strategy for RandomWalk {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.seed, index);
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        Ok(view.enabled[self.rng.index(view.enabled.len())].thread)
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        Ok(waiters[self.rng.index(waiters.len())])
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        true
    }
}
