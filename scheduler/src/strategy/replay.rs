//! Replay: follows a recorded [`Schedule`] choice by choice, and stops the execution with
//! [`Stop::Diverged`] at the first point where the program offers something the schedule cannot
//! make (a thread that is not enabled, a waiter that is not waiting, a thread pick where a waiter
//! pick was recorded or the other way round, or more choices than were recorded). A schedule
//! the search cut short (an execution its strategy pruned) is replayed with
//! [`Replay::cut_short`]: where it ends, the replay ends the execution the same way.

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
    /// The schedule's runs of equal choices (a long run is not expanded: a replay of a hot
    /// loop's millions of steps stays small).
    runs: Vec<(Choice, u32)>,
    /// Position: the run, and how many of its choices were made.
    run: usize,
    offset: u32,
    /// Choices made so far (for divergence reports).
    made: u64,
    total: u64,
    result: ReplayResult,
    /// The recorded execution was pruned where its schedule ends: end this one there too.
    cut_short: bool,
}

impl Replay {
    /// A replay of `schedule`.
    pub fn new(schedule: &Schedule) -> Replay {
        Replay {
            runs: schedule.runs().to_vec(),
            run: 0,
            offset: 0,
            made: 0,
            total: schedule.len(),
            result: ReplayResult::NotRun,
            cut_short: false,
        }
    }

    /// The replay of a schedule its search cut short (the strategy pruned the rest of the
    /// execution): when the schedule runs out, the execution ends as pruned, as it did when
    /// recorded, instead of diverging.
    pub fn cut_short(mut self) -> Replay {
        self.cut_short = true;
        self
    }

    /// How the (last) replayed execution went.
    pub fn result(&self) -> &ReplayResult {
        &self.result
    }

    fn expected(&self) -> Option<Choice> {
        self.runs.get(self.run).map(|&(c, _)| c)
    }

    fn advance(&mut self) {
        self.made += 1;
        self.offset += 1;
        if self.offset == self.runs[self.run].1 {
            self.run += 1;
            self.offset = 0;
        }
    }

    fn diverge(&mut self, expected: Option<Choice>, offered: Vec<Choice>) -> Stop {
        let d = Divergence {
            choice_index: self.made,
            expected,
            offered,
        };
        self.result = ReplayResult::Diverged(d.clone());
        Stop::Diverged(d)
    }

    /// Makes the next recorded choice if the program offers it.
    fn follow<I: Iterator<Item = Choice> + Clone>(&mut self, offered: I) -> Pick {
        let expected = self.expected();
        if expected.is_none() && self.cut_short {
            self.result = ReplayResult::Followed;
            return Err(Stop::Pruned);
        }
        if let Some(e) = expected {
            // `offered` holds only thread picks or only waiter picks, so this checks the kind too.
            if offered.clone().any(|c| c == e) {
                self.advance();
                return Ok(e.thread());
            }
        }
        Err(self.diverge(expected, offered.collect()))
    }
}

impl Strategy for Replay {
    fn begin_execution(&mut self, _index: u64) {
        self.run = 0;
        self.offset = 0;
        self.made = 0;
        self.result = ReplayResult::NotRun;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.follow(view.enabled.iter().map(|c| Choice::Thread(c.thread)))
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.follow(waiters.iter().map(|&t| Choice::Waiter(t)))
    }

    fn offers_quiet_steps(&self) -> bool {
        true
    }

    /// The rest of the current run, when it is the running thread's: the recording made those
    /// choices in a row.
    fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
        match (self.runs.get(self.run), view.running) {
            (Some(&(Choice::Thread(t), n)), Some(r)) if t == r => u64::from(n - self.offset),
            _ => 0,
        }
    }

    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
        let mut left = steps;
        while left > 0 {
            match self.runs.get(self.run) {
                Some(&(Choice::Thread(t), n)) if t == thread => {
                    let take = left.min(u64::from(n - self.offset));
                    self.made += take;
                    left -= take;
                    self.offset += take as u32;
                    if self.offset == n {
                        self.run += 1;
                        self.offset = 0;
                    }
                }
                None if self.cut_short => {
                    self.result = ReplayResult::Followed;
                    return Err(Stop::Pruned);
                }
                other => {
                    let expected = other.map(|&(c, _)| c);
                    return Err(self.diverge(expected, vec![Choice::Thread(thread)]));
                }
            }
        }
        Ok(())
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        if self.result == ReplayResult::NotRun {
            let remaining = self.total - self.made;
            self.result = if remaining == 0 {
                ReplayResult::Followed
            } else {
                ReplayResult::EndedEarly { remaining }
            };
        }
        false
    }
}
