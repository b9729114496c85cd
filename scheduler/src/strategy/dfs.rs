//! Depth-first enumeration of every schedule (brute force): the ground truth the other
//! strategies are checked against on small programs.
//!
//! Stateless DFS over choice points: the strategy keeps the stack of `(choice, options)` of the
//! last execution; each execution replays the stack's prefix and extends it with first choices;
//! at the end the deepest choice with an untried option advances. Every thread pick and every
//! waiter pick is a choice point. The program must be deterministic given the choices (the
//! simulator is); if a replayed prefix offers a different number of options the execution stops
//! with [`Stop::Diverged`].

use super::api::{Divergence, ExecutionSummary, Pick, Stop, Strategy, View};
use crate::ids::{ObjId, ThreadId};
use crate::schedule::Choice;

/// Brute-force enumeration of all schedules.
#[derive(Clone, Debug, Default)]
pub struct Dfs {
    /// `(index chosen, number of options)` per choice point of the current path.
    stack: Vec<(u32, u32)>,
    depth: usize,
    executions: u64,
    done: bool,
}

impl Dfs {
    /// A fresh enumeration.
    pub fn new() -> Dfs {
        Dfs::default()
    }

    /// Whether every schedule has been run.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Executions ended so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    fn choose(
        &mut self,
        options: usize,
        offered: impl Iterator<Item = Choice>,
    ) -> Result<usize, Stop> {
        let n = options as u32;
        let i = if let Some(&(chosen, count)) = self.stack.get(self.depth) {
            if count != n {
                return Err(Stop::Diverged(Divergence {
                    choice_index: self.depth as u64,
                    expected: None,
                    offered: offered.collect(),
                }));
            }
            chosen
        } else {
            self.stack.push((0, n));
            0
        };
        self.depth += 1;
        Ok(i as usize)
    }
}

impl Strategy for Dfs {
    fn begin_execution(&mut self, _index: u64) {
        self.depth = 0;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        let offered = view.enabled.iter().map(|c| Choice::Thread(c.thread));
        let i = self.choose(view.enabled.len(), offered)?;
        Ok(view.enabled[i].thread)
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        let offered = waiters.iter().map(|&t| Choice::Waiter(t));
        let i = self.choose(waiters.len(), offered)?;
        Ok(waiters[i])
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        self.executions += 1;
        self.stack.truncate(self.depth);
        while let Some(last) = self.stack.last_mut() {
            if last.0 + 1 < last.1 {
                last.0 += 1;
                return true;
            }
            self.stack.pop();
        }
        self.done = true;
        false
    }
}
