//! Non-preemptive scheduling: the running thread keeps the turn for as long as it is enabled;
//! when it blocks or ends, the enabled thread with the lowest id gets it, and when it yields or
//! sleeps, the next enabled thread in round-robin order (by thread id, after it). This is ICB's schedule at bound 0 — what a single
//! processor without time slices would run — made cheap: every data access of the running
//! thread is part of a quiet stretch, so the program runs at nearly native speed.
//!
//! One execution is the whole search (every later one would be the same). It explores nothing;
//! it is the baseline for overhead measurements ("controlled, no preemptions") and a quick
//! check that a program runs at all under rankcheck.

use super::api::{ExecutionSummary, Pick, Strategy, View};
use super::icb::{round_robin_after, yielded};

/// The non-preemptive strategy.
#[derive(Clone, Debug, Default)]
pub struct NonPreemptive {
    executions: u64,
}

impl NonPreemptive {
    pub fn new() -> NonPreemptive {
        NonPreemptive::default()
    }

    /// Executions run so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }
}

impl Strategy for NonPreemptive {
    fn begin_execution(&mut self, _index: u64) {}

    fn pick(&mut self, view: &View<'_>) -> Pick {
        Ok(match view.running {
            Some(running) if yielded(view) => round_robin_after(view, running),
            Some(running) if view.running_enabled => running,
            _ => view.enabled[0].thread,
        })
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        self.executions += 1;
        false
    }

    fn offers_quiet_steps(&self) -> bool {
        true
    }

    fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
        if view.running_enabled && !yielded(view) {
            u64::MAX
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{self, programs};
    use crate::strategy::icb::Icb;
    use crate::Config;

    #[test]
    fn runs_icb_s_bound_0_schedule_once() {
        for case in programs::all() {
            for program in [&case.buggy, &case.fixed] {
                let config = Config {
                    spurious_wakeups: case.needs_spurious,
                    ..Config::default()
                };
                let mine =
                    sim::search(program, config.clone(), NonPreemptive::new(), 10, false).unwrap();
                assert_eq!(mine.executions, 1, "{}", program.name);
                let mut plain = crate::Execution::new(config.clone(), NonPreemptive::new());
                let quiet_outcome = {
                    let mut e = crate::Execution::new(config.clone(), NonPreemptive::new());
                    let o = sim::run_execution_with(&mut e, program, true).unwrap();
                    (o, e.schedule().clone())
                };
                let o = sim::run_execution(&mut plain, program).unwrap();
                assert_eq!((o.clone(), plain.schedule().clone()), quiet_outcome);
                // ICB's first execution at bound 0 is the same schedule.
                let mut icb = crate::Execution::new(config, Icb::new(0, false));
                let icb_outcome = sim::run_execution(&mut icb, program).unwrap();
                assert_eq!(
                    (icb_outcome, icb.schedule().clone()),
                    (o, plain.schedule().clone()),
                    "{}",
                    program.name
                );
            }
        }
    }
}
