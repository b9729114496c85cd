//! Warm-up before a replay: executions `first..at` run under the search's own strategy, as the
//! search's JVM ran them, then execution `at` runs under the replay.
//!
//! Why: a JVM is not the same before and after its first execution. The JDK initializes caches,
//! loads and links classes and starts helper state on first use, and some of that work passes
//! scheduling points (rewritten JDK code with monitors). An execution found after others in its
//! JVM met that work done; replayed alone in a fresh JVM it meets it again, and its schedule no
//! longer lines up. Running the same earlier executions first gives the replay the history the
//! search had. Their verdicts are the caller's to discard.

use super::api::{ExecutionSummary, Pick, Stop, Strategy, View};
use crate::ids::{ObjId, ThreadId};

/// The search's strategy until execution `at`, then the replay's.
#[derive(Clone, Debug)]
pub struct WarmUp<S, R> {
    search: S,
    replay: R,
    at: u64,
    current: u64,
    /// The search's strategy wanted no more executions before `at` (an exhaustive search that
    /// started at another point than the search did); the rest of the warm-up runs each thread
    /// as long as it can, which warms the JVM as well.
    search_over: bool,
}

impl<S: Strategy, R: Strategy> WarmUp<S, R> {
    /// `search` for every execution before `at`, `replay` for `at` and after.
    pub fn new(search: S, replay: R, at: u64) -> WarmUp<S, R> {
        WarmUp {
            search,
            replay,
            at,
            current: 0,
            search_over: false,
        }
    }

    /// Whether the current execution is a warm-up one (its verdict is not the replay's).
    pub fn warming_up(&self) -> bool {
        self.current < self.at
    }

    /// The search's strategy, while it still decides the current execution.
    pub fn searching(&self) -> Option<&S> {
        (self.warming_up() && !self.search_over).then_some(&self.search)
    }

    /// The replay's strategy.
    pub fn replay(&self) -> &R {
        &self.replay
    }

    fn filler(view: &View<'_>) -> ThreadId {
        match view.running {
            Some(r) if view.running_enabled => r,
            _ => view.enabled[0].thread,
        }
    }
}

impl<S: Strategy, R: Strategy> Strategy for WarmUp<S, R> {
    fn begin_execution(&mut self, index: u64) {
        self.current = index;
        if !self.warming_up() {
            self.replay.begin_execution(index);
        } else if !self.search_over {
            self.search.begin_execution(index);
        }
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        if !self.warming_up() {
            self.replay.pick(view)
        } else if self.search_over {
            Ok(Self::filler(view))
        } else {
            self.search.pick(view)
        }
    }

    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        if !self.warming_up() {
            self.replay.pick_waiter(obj, waiters)
        } else if self.search_over {
            Ok(waiters[0])
        } else {
            self.search.pick_waiter(obj, waiters)
        }
    }

    /// Always another execution while warming up; after `at`, what the replay says.
    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        if !self.warming_up() {
            return self.replay.end_execution(summary);
        }
        if !self.search_over && !self.search.end_execution(summary) {
            self.search_over = true;
        }
        true
    }

    fn offers_quiet_steps(&self) -> bool {
        self.search.offers_quiet_steps() || self.replay.offers_quiet_steps()
    }

    fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
        if !self.warming_up() {
            self.replay.quiet_steps(view)
        } else if self.search_over {
            0
        } else {
            self.search.quiet_steps(view)
        }
    }

    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
        if !self.warming_up() {
            self.replay.skipped(thread, steps)
        } else if self.search_over {
            Ok(())
        } else {
            self.search.skipped(thread, steps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Schedule;
    use crate::sim::{programs, run_execution, Program};
    use crate::strategy::{NonPreemptive, RandomWalk, Replay, ReplayResult};
    use crate::{Config, Execution};

    /// Runs executions until the strategy wants no more (at most `cap`): each one's index and
    /// schedule.
    fn run_all<S: Strategy>(
        model: &mut Execution<S>,
        program: &Program,
        cap: usize,
    ) -> Vec<(u64, Schedule)> {
        let mut out = Vec::new();
        for _ in 0..cap {
            let index = model.index();
            let outcome = run_execution(model, program).unwrap();
            out.push((index, model.schedule().clone()));
            if !model.finish(outcome.is_bug()).unwrap() {
                break;
            }
            model.restart().unwrap();
        }
        out
    }

    #[test]
    fn the_search_runs_before_at_and_the_replay_at_at() {
        let program = programs::lost_update(false);
        // The search's JVM ran executions 5, 6, 7, …; execution 7 is the one replayed.
        let mut search = Execution::starting_at(Config::default(), RandomWalk::new(9), 5);
        let searched = run_all(&mut search, &program, 3);
        let recorded = searched[2].1.clone();
        let warm = WarmUp::new(RandomWalk::new(9), Replay::new(&recorded), 7);
        let mut model = Execution::starting_at(Config::default(), warm, 5);
        let warmed = run_all(&mut model, &program, 10);
        // The same executions, and the replay is the last one.
        assert_eq!(warmed, searched);
        assert_eq!(model.strategy().replay().result(), &ReplayResult::Followed);
        // A replay alone, with another strategy's history before it, would differ: the test
        // is not vacuous only if the warm-up's schedules are not all the recorded one.
        assert!(searched[..2].iter().any(|(_, s)| *s != recorded));
    }

    #[test]
    fn a_search_that_wants_no_more_leaves_the_rest_of_the_warm_up_to_the_filler() {
        let program = programs::lost_update(false);
        let mut recorder = Execution::starting_at(Config::default(), NonPreemptive::new(), 4);
        let recorded = run_all(&mut recorder, &program, 1)[0].1.clone();
        // Non-preemptive has one schedule: it wants no second execution.
        let warm = WarmUp::new(NonPreemptive::new(), Replay::new(&recorded), 4);
        let mut model = Execution::new(Config::default(), warm);
        let ran = run_all(&mut model, &program, 10);
        assert_eq!(
            ran.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4]
        );
        assert!(model.strategy().searching().is_none());
        assert_eq!(model.strategy().replay().result(), &ReplayResult::Followed);
    }
}
