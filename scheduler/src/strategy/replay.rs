//! Replay: follows a recorded [`Schedule`] choice by choice, and stops the execution with
//! [`Stop::Diverged`] at the first point where the program offers something the schedule cannot
//! make (a thread that is not enabled, a waiter that is not waiting, a thread pick where a waiter
//! pick was recorded or the other way round, or more choices than were recorded).

use super::api::{Divergence, ExecutionSummary, Pick, Stop, Strategy, View};
use crate::ids::{ObjId, ThreadId};
use crate::schedule::{Choice, Schedule};

/// How a replay went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayResult {
    /// Not run yet.
    NotRun,
    /// Every recorded choice was made and the program asked for no other.
    Followed,
    /// The program left the schedule.
    Diverged(Divergence),
    /// The program ended with `remaining` recorded choices unused.
    EndedEarly { remaining: u64 },
}

/// The replay strategy: one execution, then done.
#[derive(Clone, Debug)]
pub struct Replay {
    choices: Vec<Choice>,
    next: usize,
    result: ReplayResult,
}

impl Replay {
    /// A replay of `schedule`.
    pub fn new(schedule: &Schedule) -> Replay {
        Replay {
            choices: schedule.iter().collect(),
            next: 0,
            result: ReplayResult::NotRun,
        }
    }

    /// How the (last) replayed execution went.
    pub fn result(&self) -> &ReplayResult {
        &self.result
    }

    /// Makes the next recorded choice if the program offers it.
    fn follow<I: Iterator<Item = Choice> + Clone>(&mut self, offered: I) -> Pick {
        let index = self.next;
        let expected = self.choices.get(index).copied();
        if let Some(e) = expected {
            // `offered` holds only thread picks or only waiter picks, so this checks the kind too.
            if offered.clone().any(|c| c == e) {
                self.next += 1;
                return Ok(e.thread());
            }
        }
        let d = Divergence {
            choice_index: index as u64,
            expected,
            offered: offered.collect(),
        };
        self.result = ReplayResult::Diverged(d.clone());
        Err(Stop::Diverged(d))
    }
}

impl Strategy for Replay {
    fn begin_execution(&mut self, _index: u64) {
        self.next = 0;
        self.result = ReplayResult::NotRun;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.follow(view.enabled.iter().map(|c| Choice::Thread(c.thread)))
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.follow(waiters.iter().map(|&t| Choice::Waiter(t)))
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        if self.result == ReplayResult::NotRun {
            let remaining = (self.choices.len() - self.next) as u64;
            self.result = if remaining == 0 {
                ReplayResult::Followed
            } else {
                ReplayResult::EndedEarly { remaining }
            };
        }
        false
    }
}
