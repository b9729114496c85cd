//! The [`Strategy`] trait and what it sees.

use crate::events::EventLog;
use crate::ids::{ObjId, ThreadId};
use crate::op::Op;
use crate::schedule::{Choice, Schedule};

/// A search strategy: decides which enabled thread runs at each scheduling point and which
/// waiter a `notify` wakes.
///
/// # Lifecycle
///
/// One strategy value lives across all executions of a session:
///
/// 1. [`begin_execution(index)`](Strategy::begin_execution) with `index = 0, 1, 2, …`; a
///    randomized strategy seeds its per-execution [`SeededRandom`](crate::SeededRandom) here
///    (`SeededRandom::for_execution(seed, index)`).
/// 2. Any number of [`pick`](Strategy::pick) calls, one per scheduling point, each with a
///    non-empty list of enabled threads, interleaved with
///    [`pick_waiter`](Strategy::pick_waiter) calls when a `notify` finds two waiters or more.
/// 3. [`end_execution(summary)`](Strategy::end_execution) once, with the execution's ending and
///    verdict; it returns whether the strategy wants more executions.
///
/// Preconditions the [`Execution`](crate::Execution) guarantees: `view.enabled` is non-empty and
/// sorted by thread id; `waiters` has at least two threads, in wait-set order (longest waiting
/// first). Postcondition the strategy guarantees: the returned thread is one of those offered
/// (otherwise the execution reports [`ExecError::StrategyPickedDisabled`](crate::ExecError)).
///
/// Strategies never record schedules and never replay: the [`Execution`](crate::Execution)
/// records every choice, and [`Replay`](crate::strategy::Replay) is a strategy of its own.
pub trait Strategy {
    /// Execution `index` (0-based) starts.
    fn begin_execution(&mut self, index: u64);

    /// Which enabled thread performs its pending operation now, or [`Stop`] to end the execution
    /// here.
    fn pick(&mut self, view: &View<'_>) -> Pick;

    /// Which of `waiters` (at least two, longest waiting first) a `notify` on `obj` wakes. The
    /// default wakes the longest-waiting one.
    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        let _ = obj;
        Ok(waiters[0])
    }

    /// The execution ended (`summary` says how); `true` if the strategy wants another one.
    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool;

    /// Whether [`quiet_steps`](Strategy::quiet_steps) can ever be above 0 (so the execution
    /// does not build a view for strategies that never grant a quiet stretch).
    fn offers_quiet_steps(&self) -> bool {
        false
    }

    /// A quiet stretch: how many of the running thread's next scheduling points this strategy
    /// would certainly answer with `view.running`, provided each of them is a data access
    /// (which changes no other thread's enabledness). `view` is the state right after the
    /// running thread got the turn, with a placeholder `Access` as its pending operation.
    ///
    /// The agent lets the thread pass that many access points without asking (no pick, no
    /// event: a hot loop runs at nearly native speed) and reports how many it passed with
    /// [`skipped`](Strategy::skipped). Answering more than the strategy's picks would give is
    /// a wrong schedule; answering 0 (the default) is always right.
    fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
        let _ = view;
        0
    }

    /// The running thread `thread` performed `steps` scheduling points without a pick: a quiet
    /// stretch, or data accesses inside a static initializer (never preempted). They are in
    /// the schedule and the step count but not in the event log. The default ignores them; a
    /// strategy that follows a schedule advances over them, and stops if the schedule says
    /// otherwise.
    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
        let _ = (thread, steps);
        Ok(())
    }
}

/// A strategy's answer: a thread, or a reason to end the execution now.
pub type Pick = Result<ThreadId, Stop>;

/// Why a strategy ended an execution early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A replay met a choice its schedule cannot make.
    Diverged(Divergence),
    /// The strategy knows the rest of this execution is not worth running (e.g. its
    /// happens-before graph was explored before).
    Pruned,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Diverged(d) => write!(f, "the replay diverged at {d}"),
            Stop::Pruned => write!(f, "the strategy pruned the rest of this execution"),
        }
    }
}

/// Where and how a replayed program left its schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Index of the choice (0-based, counting thread and waiter choices) that could not be made.
    pub choice_index: u64,
    /// What the schedule says at that point (`None`: the schedule had ended).
    pub expected: Option<Choice>,
    /// What the program offered instead: the enabled threads, or the waiters.
    pub offered: Vec<Choice>,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let offered: Vec<String> = self.offered.iter().map(|c| c.to_string()).collect();
        match &self.expected {
            Some(c) => write!(
                f,
                "choice {}: the schedule says {c} but the program offered {}",
                self.choice_index,
                offered.join(" ")
            ),
            None => write!(
                f,
                "choice {}: the schedule has ended but the program offered {}",
                self.choice_index,
                offered.join(" ")
            ),
        }
    }
}

/// One enabled thread and the operation it would perform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub thread: ThreadId,
    /// Its pending operation.
    pub op: Op,
    /// Why it is enabled (matters for blocking operations: picking a `Timeout` candidate is
    /// choosing that the timeout fires now).
    pub via: Via,
    /// How many `Yield`/`Sleep` operations it has performed in this execution.
    pub yields: u32,
}

/// Why a candidate is enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Via {
    /// The operation can happen as usual (a free monitor, a notification, a finished join
    /// target, a park permit, or an operation that never blocks).
    Ready,
    /// Only because the thread was interrupted (outcome `Interrupted`).
    Interrupt,
    /// Only because a timed operation may time out (outcome `TimedOut`).
    Timeout,
    /// Only as a spurious wake-up (outcome `Normal`; needs
    /// [`Config::spurious_wakeups`](crate::Config::spurious_wakeups)).
    Spurious,
}

/// What a strategy sees at a scheduling point.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// Every enabled thread with its pending operation; non-empty, sorted by thread id.
    pub enabled: &'a [Candidate],
    /// The thread that was running until this scheduling point (it just announced its next
    /// operation, or just finished); `None` only at the first point of an execution.
    pub running: Option<ThreadId>,
    /// Whether `running` is among `enabled`: if so, picking any other thread is a preemption.
    pub running_enabled: bool,
    /// Steps performed so far in this execution; the step being chosen is number `step + 1`.
    pub step: u64,
    /// Threads created so far in this execution (ids `0..threads`).
    pub threads: u32,
    /// Every step performed so far in this execution.
    pub events: &'a EventLog,
}

impl View<'_> {
    /// Whether picking `t` now is a preemption (a switch away from a still-enabled thread).
    pub fn is_preemption(&self, t: ThreadId) -> bool {
        self.running_enabled && self.running != Some(t)
    }

    /// The candidate entry of `t`, if `t` is enabled.
    pub fn candidate(&self, t: ThreadId) -> Option<&Candidate> {
        self.enabled
            .binary_search_by_key(&t, |c| c.thread)
            .ok()
            .map(|i| &self.enabled[i])
    }

    /// The candidate entry of the running thread, if it is enabled.
    pub fn running_candidate(&self) -> Option<&Candidate> {
        self.running.and_then(|t| self.candidate(t))
    }
}

/// How an execution ended, from the model's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every thread finished.
    Finished,
    /// A deadlock was reported.
    Deadlock,
    /// The step bound was reached.
    StepBound,
    /// Every enabled thread kept spinning for the livelock window.
    Livelock,
    /// A thread performed `Exit` with this status.
    Exit(i32),
    /// The strategy stopped the execution.
    Stopped,
    /// The caller ended the execution before the model reached an end (e.g. the agent's watchdog,
    /// or an assertion that ends a simulated program).
    Abandoned,
}

/// What [`Strategy::end_execution`] learns about the execution that ended.
#[derive(Clone, Copy, Debug)]
pub struct ExecutionSummary<'a> {
    /// The execution's index (as given to `begin_execution`).
    pub index: u64,
    /// Steps performed.
    pub steps: u64,
    /// Threads created.
    pub threads: u32,
    /// How the model saw it end.
    pub ending: Ending,
    /// Whether the caller judged it a bug (an uncaught throwable, a failing oracle, a deadlock, …).
    pub bug: bool,
    /// Every choice made.
    pub schedule: &'a Schedule,
    /// Every step performed.
    pub events: &'a EventLog,
}

/// Forwards every method to the pointee, so a `Box<dyn Strategy + Send>` (chosen at run time)
/// or a `&mut` borrow of any strategy is a strategy too.
macro_rules! forward_strategy {
    ($($ty:ty),*) => {$(
        impl<S: Strategy + ?Sized> Strategy for $ty {
            fn begin_execution(&mut self, index: u64) {
                (**self).begin_execution(index)
            }
            fn pick(&mut self, view: &View<'_>) -> Pick {
                (**self).pick(view)
            }
            fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
                (**self).pick_waiter(obj, waiters)
            }
            fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
                (**self).end_execution(summary)
            }
            fn offers_quiet_steps(&self) -> bool {
                (**self).offers_quiet_steps()
            }
            fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
                (**self).quiet_steps(view)
            }
            fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
                (**self).skipped(thread, steps)
            }
        }
    )*};
}

forward_strategy!(Box<S>, &mut S);
