//! The [`Execution`] facade: the execution model plus the strategy, driven by announcements.

use crate::events::{Event, EventLog};
use crate::fairness::{Fairness, Verdict};
use crate::ids::{Loc, ObjId, SiteId, ThreadId};
use crate::op::{Decision, JavaThreadState, Op, OpOutcome};
use crate::schedule::{Choice, Schedule};
use crate::strategy::{Candidate, Ending, ExecutionSummary, Stop, Strategy, Via, View};
use rustc_hash::FxHashMap as IdMap;
use std::fmt;

/// The pending operation a thread is given while a strategy is asked for a quiet stretch: some
/// data access (strategies that grant quiet stretches do not look at its location).
const QUIET_ACCESS: Op = Op::Access {
    loc: crate::ids::Loc(0),
    var: crate::ids::VarId::UNKNOWN,
    write: true,
    site: 0,
};

/// Settings of the model, fixed for a session.
///
/// Construct with `Config { max_steps: 10_000, ..Config::default() }` so that fields added later
/// keep your code compiling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Steps after which an execution ends with [`Decision::StepBound`]: a run too long to
    /// explore, never a bug by itself.
    pub max_steps: u64,
    /// Steps during which every enabled thread must keep spinning, with no write or
    /// synchronization anywhere, before the execution ends with [`Decision::Livelock`]
    /// (crate::fairness).
    pub livelock_window: u64,
    /// When on, a thread in a wait set (or parked) is enabled even if nobody notified it; picking
    /// it is a spurious wake-up (outcome `Normal`), a strategy choice like any other.
    pub spurious_wakeups: bool,
    /// At most this many spurious wake-ups per execution (when `spurious_wakeups` is on), so
    /// that a correct `while (!cond) wait();` loop cannot be woken forever and exhaustive
    /// searches stay finite.
    pub max_spurious_wakeups: u32,
    /// When a timed wait, timed join or timed park may return by timing out.
    pub timeouts: Timeouts,
}

/// When a timed blocking operation (`wait(ms)`, `join(ms)`, `parkNanos`, and everything built
/// on them: `awaitTermination`, `poll(timeout)`, `get(timeout)`, …) may time out. Time is
/// virtual: the model has no clock, only the choice of letting a timeout fire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timeouts {
    /// Only when no thread can go on otherwise: every enabled thread is a timed waiter whose
    /// timeout would fire, or spins (crate::fairness). A correct program that waits
    /// `awaitTermination(1, MINUTES)` for work that takes microseconds is not failed by a
    /// timeout no real machine would see; a program that needs a timeout to go on still gets it.
    #[default]
    Idle,
    /// Whenever the strategy likes, as if any thread could stall for any time: also finds the
    /// bugs of a timeout too short for a slow machine (a stricter reading of the JLS).
    Any,
}

impl Timeouts {
    /// The names on the command line and in the agent's options.
    pub const NAMES: [&'static str; 2] = ["idle", "any"];

    pub fn from_name(name: &str) -> Option<Timeouts> {
        match name {
            "idle" => Some(Timeouts::Idle),
            "any" => Some(Timeouts::Any),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Timeouts::Idle => "idle",
            Timeouts::Any => "any",
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_steps: 10_000_000,
            livelock_window: 1_000_000,
            spurious_wakeups: false,
            max_spurious_wakeups: 2,
            timeouts: Timeouts::Idle,
        }
    }
}

/// Invalid use of the facade (by the agent, the simulator or a strategy). The model is unchanged
/// when one is returned, except after a `StrategyPickedDisabled` from `pick_waiter`, which ends
/// the execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// The execution already ended (a terminal decision was returned, or `finish` was called).
    Ended,
    /// The first call of an execution must be `announce(ThreadId(0), Op::Begin)`.
    FirstCallNotMainBegin { thread: ThreadId, op: Op },
    /// `thread` is not the running thread (or has not performed its previous operation, or has
    /// finished); `running` is the one that is.
    NotRunning {
        thread: ThreadId,
        running: Option<ThreadId>,
    },
    /// An operation names a thread that does not exist in this execution.
    UnknownThread(ThreadId),
    /// `Begin` announced by a thread that has already begun.
    BeginAgain(ThreadId),
    /// `WaitReturn` announced by a thread that is not in `obj`'s wait set.
    NotWaiting { thread: ThreadId, obj: ObjId },
    /// A thread that performed `Wait` on `obj` announced something other than `WaitReturn { obj }`.
    MustReturnFromWait {
        thread: ThreadId,
        obj: ObjId,
        op: Op,
    },
    /// `thread_finished(thread)` for a thread that has not performed `End`.
    NotFinished(ThreadId),
    /// The strategy picked a thread that was not offered.
    StrategyPickedDisabled(ThreadId),
    /// `finish` was called twice for one execution.
    AlreadyFinished,
    /// `restart` was called before `finish`.
    NotFinishedYet,
    /// `adopt_monitor` for a monitor the model gives to another thread.
    MonitorHeld { obj: ObjId, owner: ThreadId },
    /// `class_init_ended` for a thread whose pending operation is not `ClassInitWait`.
    NotWaitingForInit(ThreadId),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Ended => write!(f, "the execution has already ended"),
            ExecError::FirstCallNotMainBegin { thread, op } => write!(
                f,
                "the first announcement must be t0 Begin, got {thread} {}",
                op.kind().as_str()
            ),
            ExecError::NotRunning { thread, running } => match running {
                Some(r) => write!(f, "{thread} announced but {r} is the running thread"),
                None => write!(f, "{thread} announced but no thread is running"),
            },
            ExecError::UnknownThread(t) => write!(f, "unknown thread {t}"),
            ExecError::BeginAgain(t) => write!(f, "{t} announced Begin twice"),
            ExecError::NotWaiting { thread, obj } => {
                write!(
                    f,
                    "{thread} announced WaitReturn on object {} without a Wait",
                    obj.0
                )
            }
            ExecError::MustReturnFromWait { thread, obj, op } => write!(
                f,
                "{thread} waits on object {} but announced {}",
                obj.0,
                op.kind().as_str()
            ),
            ExecError::NotFinished(t) => write!(f, "{t} reported finished without performing End"),
            ExecError::StrategyPickedDisabled(t) => {
                write!(f, "the strategy picked {t}, which is not enabled")
            }
            ExecError::AlreadyFinished => write!(f, "finish called twice"),
            ExecError::NotFinishedYet => write!(f, "restart called before finish"),
            ExecError::MonitorHeld { obj, owner } => write!(
                f,
                "the monitor of object {} is {owner}'s in the model",
                obj.0
            ),
            ExecError::NotWaitingForInit(t) => {
                write!(f, "{t} does not wait for a class initialization")
            }
        }
    }
}

impl std::error::Error for ExecError {}

/// Where a thread stands in the model (for reports: who waits for what).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadStatus {
    /// The running thread, between being picked and its next announcement.
    Running,
    /// Enabled: its pending operation can be performed (sleeping and yielding threads too).
    Ready(Op),
    /// Its `MonitorEnter` waits for `owner` to release `obj`.
    BlockedOnMonitor {
        obj: ObjId,
        owner: Option<ThreadId>,
    },
    /// In `obj`'s wait set (`notified`: woken, but the monitor is taken).
    Waiting {
        obj: ObjId,
        timed: bool,
        notified: bool,
    },
    /// Its `Join` waits for `target` to finish.
    Joining {
        target: ThreadId,
    },
    /// Its `Park` waits for a permit.
    Parked,
    /// Its `ClassInitWait` waits, inside the JVM, for a class another thread initializes.
    InitWaiting,
    Finished,
}

impl ThreadStatus {
    /// Whether the thread waits for another (a monitor, a notify, a join, a permit, a class
    /// initialization): it is disabled, at an operation of its own code.
    pub fn is_blocked(&self) -> bool {
        matches!(
            self,
            ThreadStatus::BlockedOnMonitor { .. }
                | ThreadStatus::Waiting { .. }
                | ThreadStatus::Joining { .. }
                | ThreadStatus::Parked
                | ThreadStatus::InitWaiting
        )
    }
}

/// Why `perform` could not complete.
enum Halt {
    Stop(Stop),
    /// `pick_waiter` returned a thread that was not offered.
    BadPick(ThreadId),
}

/// A thread between performing `Wait` and performing `WaitReturn`.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    obj: ObjId,
    monitor: u32,
    saved_count: u32,
    timed: bool,
    notified: bool,
}

#[derive(Clone, Debug, Default)]
struct ThreadState {
    /// The announced, not yet performed operation (`None` while running, or when finished).
    pending: Option<Op>,
    finished: bool,
    interrupted: bool,
    permit: bool,
    waiting: Option<Waiting>,
    yields: u32,
    /// Events performed so far (the next event's occurrence index).
    performed: u32,
    /// Monitors this thread owns (for [`Execution::others_own_monitors`]).
    owns: u32,
    /// The virtual time at which its pending timed wait, join or park times out (set when the
    /// operation is announced, or for a wait performed).
    deadline: u64,
    /// Its own `Thread` object, when a monitor operation named it: ending takes that monitor
    /// and wakes every thread waiting on it ([`Execution::thread_object`]).
    object: Option<ObjId>,
    /// The class initialization its pending [`Op::ClassInitWait`] waits for has ended.
    init_ended: bool,
}

#[derive(Clone, Debug, Default)]
struct Monitor {
    owner: Option<ThreadId>,
    count: u32,
    /// Threads in the wait set that have not been notified, longest waiting first.
    waiters: Vec<ThreadId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the first announcement.
    Fresh,
    Live,
    /// A terminal decision was returned.
    Over,
    /// `finish` was called.
    Reported,
}

/// How soon a timeout held back while other threads go on must be due for
/// [`Execution::timeouts_withheld`] to count it: 100 ms, a pause a loaded machine or a garbage
/// collection can make (a 10 s `awaitTermination` running out early needs a stall no run has).
pub const SHORT_TIMEOUT_NS: u64 = 100_000_000;

/// One execution of the program under the model, driven by the agent (or the simulator).
///
/// The strategy `S` lives across executions: [`finish`](Execution::finish) ends one execution,
/// [`restart`](Execution::restart) starts the next, reusing every buffer. `S` may be a concrete
/// strategy, a `Box<dyn Strategy + Send>`, or a `&mut` to either.
pub struct Execution<S: Strategy> {
    config: Config,
    strategy: S,
    index: u64,
    phase: Phase,
    ending: Option<Ending>,
    running: Option<ThreadId>,
    steps: u64,
    spurious_used: u32,
    /// Steps at which a timed waiter's timeout was not offered because other threads could go
    /// on (`Timeouts::Idle`), and whether the candidates last collected withheld one.
    timeouts_withheld: u64,
    withholding: bool,
    threads: Vec<ThreadState>,
    monitors: Vec<Monitor>,
    monitor_of: IdMap<ObjId, u32>,
    /// Monitors owned by some thread (the sum of the threads' `owns`).
    owned_monitors: u32,
    candidates: Vec<Candidate>,
    schedule: Schedule,
    events: EventLog,
    fairness: Fairness,
    /// With [`Execution::record_steps`]: per event, its step number and whether it preempted.
    marks: Option<Vec<StepMark>>,
    /// The pick being performed took the turn from a running thread that was enabled.
    preempting: bool,
    /// Virtual time, nanoseconds since the execution began: the latest deadline of a timeout
    /// that fired or a sleep that ended (running threads take no time).
    now_ns: u64,
}

/// Where an event stands in the schedule (kept only when asked, for reports): its step number
/// (1-based; steps that are no events, such as accesses passed in a quiet stretch, are counted
/// too) and whether performing it preempted the running thread (which was enabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepMark {
    pub step: u64,
    pub preempted: bool,
}

impl<S: Strategy> Execution<S> {
    /// Starts execution 0: `ThreadId(0)` exists with `Begin` pending, and the strategy's
    /// `begin_execution(0)` has been called.
    pub fn new(config: Config, strategy: S) -> Execution<S> {
        Execution::starting_at(config, strategy, 0)
    }

    /// Like [`new`](Execution::new), but the first execution has index `index` (for sessions
    /// split over several processes).
    pub fn starting_at(config: Config, mut strategy: S, index: u64) -> Execution<S> {
        strategy.begin_execution(index);
        let mut e = Execution {
            config,
            strategy,
            index,
            phase: Phase::Fresh,
            ending: None,
            running: None,
            steps: 0,
            spurious_used: 0,
            timeouts_withheld: 0,
            withholding: false,
            threads: Vec::new(),
            monitors: Vec::new(),
            monitor_of: IdMap::default(),
            owned_monitors: 0,
            candidates: Vec::new(),
            schedule: Schedule::new(),
            events: EventLog::new(),
            fairness: Fairness::default(),
            marks: None,
            preempting: false,
            now_ns: 0,
        };
        e.reset_model();
        e
    }

    fn reset_model(&mut self) {
        self.phase = Phase::Fresh;
        self.ending = None;
        self.running = None;
        self.steps = 0;
        self.spurious_used = 0;
        self.timeouts_withheld = 0;
        self.now_ns = 0;
        self.threads.clear();
        self.threads.push(ThreadState {
            pending: Some(Op::Begin),
            ..ThreadState::default()
        });
        self.monitors.clear();
        self.monitor_of.clear();
        self.owned_monitors = 0;
        self.candidates.clear();
        self.schedule.clear();
        self.events.clear();
        self.fairness.clear();
        if let Some(m) = &mut self.marks {
            m.clear();
        }
        self.preempting = false;
    }

    /// Keep a [`StepMark`] per event from now on (a replay that writes a report asks; searches
    /// do not pay for it).
    pub fn record_steps(&mut self, on: bool) {
        self.marks = on.then(Vec::new);
    }

    /// One mark per event of [`Execution::events`], when [`Execution::record_steps`] is on.
    pub fn step_marks(&self) -> Option<&[StepMark]> {
        self.marks.as_deref()
    }

    fn push_event(&mut self, e: Event) {
        self.events.push(e);
        if let Some(m) = &mut self.marks {
            m.push(StepMark {
                step: self.steps,
                preempted: std::mem::take(&mut self.preempting),
            });
        }
        self.preempting = false;
    }

    /// `running` (the one thread allowed to run) reached a scheduling point and `next` is its
    /// next operation. Picks the thread that performs its pending operation now, applies that
    /// operation to the model, records the choice and the event, and says what happens.
    ///
    /// The first call of every execution is `announce(ThreadId(0), Op::Begin)`.
    pub fn announce(&mut self, running: ThreadId, next: Op) -> Result<Decision, ExecError> {
        match self.phase {
            Phase::Over | Phase::Reported => return Err(ExecError::Ended),
            Phase::Fresh => {
                if running != ThreadId::MAIN || next != Op::Begin {
                    return Err(ExecError::FirstCallNotMainBegin {
                        thread: running,
                        op: next,
                    });
                }
                self.phase = Phase::Live;
                return self.decide(None);
            }
            Phase::Live => {}
        }
        let state = self.thread(running)?;
        if self.running != Some(running) || state.pending.is_some() || state.finished {
            return Err(ExecError::NotRunning {
                thread: running,
                running: self.running,
            });
        }
        match (state.waiting, next) {
            (Some(w), Op::WaitReturn { obj }) if w.obj == obj => {}
            (Some(w), op) => {
                return Err(ExecError::MustReturnFromWait {
                    thread: running,
                    obj: w.obj,
                    op,
                })
            }
            (None, Op::WaitReturn { obj }) => {
                return Err(ExecError::NotWaiting {
                    thread: running,
                    obj,
                })
            }
            (None, Op::Begin) => return Err(ExecError::BeginAgain(running)),
            (None, _) => {}
        }
        if let Some(t) = next.target() {
            self.thread(t)?;
        }
        let now = self.now_ns;
        let state = &mut self.threads[running.index()];
        match next {
            Op::Join {
                timed: true, nanos, ..
            }
            | Op::Park {
                timed: true, nanos, ..
            }
            // A sleep's deadline is when it ends.
            | Op::Sleep { nanos, .. } => state.deadline = now.saturating_add(nanos),
            // A wait's deadline was set when it was performed.
            Op::WaitReturn { .. } => {}
            _ => state.deadline = u64::MAX,
        }
        state.pending = Some(next);
        self.decide(Some(running))
    }

    /// After the running thread `t` performed `End`: picks the next thread.
    pub fn thread_finished(&mut self, t: ThreadId) -> Result<Decision, ExecError> {
        match self.phase {
            Phase::Over | Phase::Reported => return Err(ExecError::Ended),
            Phase::Fresh => {
                return Err(ExecError::NotRunning {
                    thread: t,
                    running: None,
                })
            }
            Phase::Live => {}
        }
        if !self.thread(t)?.finished {
            return Err(ExecError::NotFinished(t));
        }
        if self.running != Some(t) {
            return Err(ExecError::NotRunning {
                thread: t,
                running: self.running,
            });
        }
        self.decide(Some(t))
    }

    /// Ends the current execution: tells the strategy how it went (`bug`: the caller's verdict)
    /// and returns whether the strategy wants another execution. May be called at any point
    /// (the agent's watchdog, an uncaught throwable); then the ending is [`Ending::Abandoned`].
    pub fn finish(&mut self, bug: bool) -> Result<bool, ExecError> {
        if self.phase == Phase::Reported {
            return Err(ExecError::AlreadyFinished);
        }
        self.phase = Phase::Reported;
        let summary = ExecutionSummary {
            index: self.index,
            steps: self.steps,
            threads: self.threads.len() as u32,
            ending: self.ending.unwrap_or(Ending::Abandoned),
            bug,
            schedule: &self.schedule,
            events: &self.events,
        };
        Ok(self.strategy.end_execution(&summary))
    }

    /// Starts the next execution (index + 1) after [`finish`](Execution::finish).
    pub fn restart(&mut self) -> Result<(), ExecError> {
        self.restart_at(self.index + 1, None)
    }

    /// Starts execution `index` after [`finish`](Execution::finish), under `fresh` when given:
    /// the first execution of a chunk ([`chunk_plan`](crate::chunk_plan)) meets a strategy
    /// that has learned nothing, as in a JVM of its own.
    pub fn restart_at(&mut self, index: u64, fresh: Option<S>) -> Result<(), ExecError> {
        if self.phase != Phase::Reported {
            return Err(ExecError::NotFinishedYet);
        }
        if let Some(strategy) = fresh {
            self.strategy = strategy;
        }
        self.index = index;
        self.reset_model();
        self.strategy.begin_execution(self.index);
        Ok(())
    }

    /// The choices made so far in this execution.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The events performed so far in this execution.
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// Steps performed so far in this execution.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Steps of this execution at which a timed wait due within [`SHORT_TIMEOUT_NS`] could have
    /// timed out but was not offered, because other threads could go on (`Timeouts::Idle`: a timeout fires when nothing else
    /// can run, as on a machine where running takes no time). A search that found nothing says
    /// so: schedules where a delay ran out early were not explored (`Timeouts::Any` explores
    /// them).
    pub fn timeouts_withheld(&self) -> u64 {
        self.timeouts_withheld
    }

    /// This execution's index.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Threads created so far in this execution.
    pub fn thread_count(&self) -> u32 {
        self.threads.len() as u32
    }

    /// The running thread (the last one picked), if any.
    pub fn running(&self) -> Option<ThreadId> {
        self.running
    }

    /// The pending operation of `t`, if it has one.
    pub fn pending(&self, t: ThreadId) -> Option<Op> {
        self.threads.get(t.index()).and_then(|s| s.pending)
    }

    /// Thread `t`'s last step, a write announced at `site` by a compare-and-set, wrote
    /// nothing: the compare-and-set failed ([`fairness`](crate::fairness) counts it as a read).
    /// Not a step.
    pub fn cas_failed(&mut self, t: ThreadId, site: SiteId) {
        self.fairness.cas_failed(t, site);
    }

    /// Thread `t` read `loc` earlier with no event of its own (the agent makes no point of an
    /// object one thread alone has used): the fairness bookkeeping counts it among what `t`
    /// reads, so that a write of `loc` tells a spinning `t` something new. Not a step.
    pub fn read_unseen(&mut self, t: ThreadId, loc: Loc) {
        self.fairness.read_unseen(t, loc);
    }

    /// Whether thread `t` spins ([`fairness`](crate::fairness)): it re-reads what it read, yields
    /// or polls, and nobody changed what it reads.
    pub fn spinning(&self, t: ThreadId) -> bool {
        self.fairness.spinning(t)
    }

    /// Where thread `t` stands (`None` for an unknown id).
    pub fn status(&self, t: ThreadId) -> Option<ThreadStatus> {
        let s = self.threads.get(t.index())?;
        if s.finished {
            return Some(ThreadStatus::Finished);
        }
        let Some(op) = s.pending else {
            return Some(ThreadStatus::Running);
        };
        if self.enabled_via(t, s, &op).is_some() {
            return Some(ThreadStatus::Ready(op));
        }
        Some(match op {
            Op::MonitorEnter { obj, .. } => ThreadStatus::BlockedOnMonitor {
                obj,
                owner: self.monitor_owner(obj),
            },
            Op::Join { target, .. } => ThreadStatus::Joining { target },
            Op::Park { .. } => ThreadStatus::Parked,
            Op::ClassInitWait { .. } => ThreadStatus::InitWaiting,
            _ => match s.waiting {
                Some(w) => ThreadStatus::Waiting {
                    obj: w.obj,
                    timed: w.timed,
                    notified: w.notified,
                },
                // Only blocking operations can be disabled; kept total for safety.
                None => ThreadStatus::Ready(op),
            },
        })
    }

    /// What `Thread.getState()` says of `t` at its pending operation: a thread that cannot go
    /// on is `BLOCKED` on a monitor or (timed-)waiting; one whose sleep, or timed wait, join or
    /// park, can only end by its timeout is `TIMED_WAITING` (in virtual time it is still in
    /// it); otherwise `RUNNABLE`.
    pub fn java_state(&self, t: ThreadId) -> JavaThreadState {
        let s = &self.threads[t.index()];
        if s.finished {
            return JavaThreadState::Terminated;
        }
        let Some(op) = s.pending else {
            return JavaThreadState::Runnable;
        };
        let timed_or = |timed: bool, untimed: JavaThreadState| {
            if timed {
                JavaThreadState::TimedWaiting
            } else {
                untimed
            }
        };
        match (op, self.enabled_via(t, s, &op)) {
            (Op::Sleep { .. }, _) | (_, Some(Via::Timeout)) => JavaThreadState::TimedWaiting,
            (Op::MonitorEnter { .. }, None) => JavaThreadState::Blocked,
            (Op::WaitReturn { .. }, None) => match s.waiting {
                Some(w) if !w.notified && !s.interrupted => {
                    timed_or(w.timed, JavaThreadState::Waiting)
                }
                _ => JavaThreadState::Blocked,
            },
            (Op::Join { timed, .. } | Op::Park { timed, .. }, None) => {
                timed_or(timed, JavaThreadState::Waiting)
            }
            (Op::WaitReturn { .. } | Op::Park { .. }, Some(Via::Spurious)) => {
                JavaThreadState::Waiting
            }
            _ => JavaThreadState::Runnable,
        }
    }

    /// The owner of `obj`'s model monitor and its re-entry count, if it is held.
    pub fn monitor(&self, obj: ObjId) -> Option<(ThreadId, u32)> {
        let &m = self.monitor_of.get(&obj)?;
        let mon = &self.monitors[m as usize];
        mon.owner.map(|o| (o, mon.count))
    }

    /// How the model saw the execution end, once it has.
    pub fn ending(&self) -> Option<Ending> {
        self.ending
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The strategy.
    pub fn strategy(&self) -> &S {
        &self.strategy
    }

    /// The strategy, mutably (e.g. to read what a replay found).
    pub fn strategy_mut(&mut self) -> &mut S {
        &mut self.strategy
    }

    /// Gives the strategy back.
    pub fn into_strategy(self) -> S {
        self.strategy
    }

    fn thread(&self, t: ThreadId) -> Result<&ThreadState, ExecError> {
        self.threads
            .get(t.index())
            .ok_or(ExecError::UnknownThread(t))
    }

    fn monitor_index(&mut self, obj: ObjId) -> u32 {
        let monitors = &mut self.monitors;
        *self.monitor_of.entry(obj).or_insert_with(|| {
            monitors.push(Monitor::default());
            (monitors.len() - 1) as u32
        })
    }

    /// Whether `t`, running, would wait if it announced `op` now: a `wait`, or a join, park or
    /// monitor entry that is not enabled at once (a timed one that could only time out
    /// counts: it would wait out its time).
    pub fn would_block(&self, t: ThreadId, op: &Op) -> bool {
        match op {
            Op::Wait { .. } => true,
            Op::Join { .. } | Op::Park { .. } | Op::MonitorEnter { .. } => self
                .threads
                .get(t.index())
                .is_none_or(|s| self.enabled_via(t, s, op) != Some(Via::Ready)),
            _ => false,
        }
    }

    /// Tells the model that `obj` is thread `t`'s own `Thread` object, before `t` announces
    /// [`Op::End`]. The JVM ends a thread by taking that object's monitor, marking the thread
    /// terminated and waking every thread waiting on it, in one stretch under the monitor
    /// (`join` is built on it; programs also write `synchronized (t) { while (t.isAlive())
    /// t.wait(); }`). So `End` is then enabled only while no other thread holds the monitor,
    /// and performing it wakes the monitor's waiters (when no monitor operation named `obj`,
    /// nothing changes).
    pub fn thread_object(&mut self, t: ThreadId, obj: ObjId) -> Result<(), ExecError> {
        self.thread(t)?;
        self.threads[t.index()].object = Some(obj);
        Ok(())
    }

    /// Tells the model that the class initialization `t` waits for ([`Op::ClassInitWait`]) has
    /// ended: the agent learns it at the next scheduling point of any thread after the
    /// initializer returned, the same point in every run of one schedule.
    pub fn class_init_ended(&mut self, t: ThreadId) -> Result<(), ExecError> {
        let s = self.thread(t)?;
        if !matches!(s.pending, Some(Op::ClassInitWait { .. })) {
            return Err(ExecError::NotWaitingForInit(t));
        }
        self.threads[t.index()].init_ended = true;
        Ok(())
    }

    fn monitor_owner(&self, obj: ObjId) -> Option<ThreadId> {
        self.monitor_of
            .get(&obj)
            .and_then(|&i| self.monitors[i as usize].owner)
    }

    /// The threads that wait for each other's monitors in a cycle closed by `t`, which has
    /// just announced a `MonitorEnter` it cannot perform, with their pending operations; `None`
    /// without such a cycle. Entering a monitor (or re-entering it after a notify) cannot be
    /// interrupted and cannot time out, so such threads are deadlocked whatever the others do:
    /// waiting for every other thread to block too would let a watchdog or a poller that never
    /// stops hide the deadlock (the JVM's own `findDeadlockedThreads` reports it at once too).
    /// Only `t` can close a new cycle: every other edge was there before its announcement.
    fn monitor_cycle(&self, t: ThreadId) -> Option<Vec<(ThreadId, Op)>> {
        let s = self.threads.get(t.index())?;
        if !matches!(s.pending, Some(Op::MonitorEnter { .. })) {
            return None;
        }
        // The thread whose release `u` waits for, through a monitor, if `u` can move only then.
        let waits_for = |u: ThreadId| -> Option<ThreadId> {
            let us = &self.threads[u.index()];
            let obj = match (us.pending, us.waiting) {
                (Some(Op::MonitorEnter { obj, .. }), _) => obj,
                (_, Some(w)) if w.notified => w.obj,
                _ => return None,
            };
            self.monitor_owner(obj).filter(|&o| o != u)
        };
        // Each thread waits for at most one other, so the chain either returns to t within
        // as many hops as there are threads, or it never does; walk it once without
        // allocating (this runs at every contended entry), and again to collect a cycle.
        let mut at = t;
        for _ in 0..=self.threads.len() {
            at = waits_for(at)?;
            if at == t {
                let mut blocked = Vec::new();
                loop {
                    if let Some(op) = self.threads[at.index()].pending {
                        blocked.push((at, op));
                    }
                    at = waits_for(at)?;
                    if at == t {
                        return Some(blocked);
                    }
                }
            }
        }
        None
    }

    /// Whether `t` (with pending `op`) is enabled, and why.
    fn enabled_via(&self, t: ThreadId, s: &ThreadState, op: &Op) -> Option<Via> {
        let spurious =
            self.config.spurious_wakeups && self.spurious_used < self.config.max_spurious_wakeups;
        match *op {
            Op::MonitorEnter { obj, .. } => match self.monitor_owner(obj) {
                None => Some(Via::Ready),
                Some(o) if o == t => Some(Via::Ready),
                Some(_) => None,
            },
            Op::WaitReturn { .. } => {
                let w = s.waiting?;
                if self.monitors[w.monitor as usize].owner.is_some() {
                    None
                } else if w.notified {
                    Some(Via::Ready)
                } else if s.interrupted {
                    Some(Via::Interrupt)
                } else if w.timed {
                    Some(Via::Timeout)
                } else if spurious {
                    Some(Via::Spurious)
                } else {
                    None
                }
            }
            Op::End => match s.object.and_then(|obj| self.monitor_owner(obj)) {
                Some(o) if o != t => None,
                _ => Some(Via::Ready),
            },
            Op::Join { target, timed, .. } => {
                if self.threads[target.index()].finished {
                    Some(Via::Ready)
                } else if s.interrupted {
                    Some(Via::Interrupt)
                } else if timed {
                    Some(Via::Timeout)
                } else {
                    None
                }
            }
            Op::ClassInitWait { .. } => s.init_ended.then_some(Via::Ready),
            Op::Park { timed, .. } => {
                if s.permit {
                    Some(Via::Ready)
                } else if s.interrupted {
                    Some(Via::Interrupt)
                } else if timed {
                    Some(Via::Timeout)
                } else if spurious {
                    Some(Via::Spurious)
                } else {
                    None
                }
            }
            _ => Some(Via::Ready),
        }
    }

    fn end(&mut self, ending: Ending, decision: Decision) -> Result<Decision, ExecError> {
        self.phase = Phase::Over;
        self.ending = Some(ending);
        Ok(decision)
    }

    /// Fills `candidates` with every enabled thread; returns whether any thread is unfinished.
    fn collect_candidates(&mut self) -> bool {
        self.candidates.clear();
        self.withholding = false;
        let mut unfinished = false;
        for (i, s) in self.threads.iter().enumerate() {
            if s.finished {
                continue;
            }
            unfinished = true;
            let t = ThreadId(i as u32);
            if let Some(op) = s.pending {
                if let Some(via) = self.enabled_via(t, s, &op) {
                    self.candidates.push(Candidate {
                        thread: t,
                        op,
                        via,
                        yields: s.yields,
                    });
                }
            }
        }
        if self.config.timeouts == Timeouts::Idle {
            let fairness = &self.fairness;
            let threads = &self.threads;
            let now = self.now_ns;
            // A timeout whose deadline a sleep has passed fired already, before the sleep ended:
            // it goes first (the earliest first), whatever else could run. A thread that sleeps
            // in a loop (`while (alive) { tick++; sleep(10); }`) moves time on, so that
            // `join(1000)` on it ends as on any machine.
            let expired = self
                .candidates
                .iter()
                .filter(|c| c.via == Via::Timeout)
                .map(|c| threads[c.thread.index()].deadline)
                .filter(|&d| d <= now)
                .min();
            let others_go_on = self
                .candidates
                .iter()
                .any(|c| c.via != Via::Timeout && !fairness.spins_on_reads_at(c));
            if let Some(first) = expired {
                self.candidates.retain(|c| {
                    c.via == Via::Timeout && threads[c.thread.index()].deadline == first
                });
            } else if others_go_on {
                // Only a timeout due soon is worth a note: one a pause of the machine (a
                // collection, a loaded core) could let fire before the others' next steps.
                self.withholding = self.candidates.iter().any(|c| {
                    c.via == Via::Timeout
                        && threads[c.thread.index()].deadline.saturating_sub(now)
                            <= SHORT_TIMEOUT_NS
                });
                self.candidates.retain(|c| c.via != Via::Timeout);
            } else {
                // As on a machine where running takes no time: of the timed waiters, the one
                // whose timeout ends first times out first (a 2 s `get` does not run out before
                // the 10 ms delay of the task it waits for).
                let threads = &self.threads;
                let first = self
                    .candidates
                    .iter()
                    .filter(|c| c.via == Via::Timeout)
                    .map(|c| threads[c.thread.index()].deadline)
                    .min();
                if let Some(first) = first {
                    self.candidates.retain(|c| {
                        c.via != Via::Timeout || threads[c.thread.index()].deadline == first
                    });
                }
            }
        }
        unfinished
    }

    /// How many data accesses the running thread `t` may perform from now on without
    /// announcing them (a quiet stretch): the strategy's
    /// [`quiet_steps`](Strategy::quiet_steps), never past the step bound. 0 when the strategy
    /// grants none or `t` is not running freely.
    pub fn quiet_budget(&mut self, t: ThreadId) -> u64 {
        if self.phase != Phase::Live
            || self.running != Some(t)
            || !self.strategy.offers_quiet_steps()
        {
            return 0;
        }
        let room = self.config.max_steps.saturating_sub(self.steps);
        match self.threads.get(t.index()) {
            Some(s) if s.pending.is_none() && !s.finished && s.waiting.is_none() && room > 0 => {}
            _ => return 0,
        }
        // The view the strategy would see at t's next access.
        self.threads[t.index()].pending = Some(QUIET_ACCESS);
        self.collect_candidates();
        self.threads[t.index()].pending = None;
        let view = View {
            enabled: &self.candidates,
            running: Some(t),
            running_enabled: true,
            step: self.steps,
            threads: self.threads.len() as u32,
            events: &self.events,
        };
        self.strategy.quiet_steps(&view).min(room)
    }

    /// The running thread `t` performed `n` data accesses without announcing them (a quiet
    /// stretch the strategy granted, or accesses that are never scheduling points, such as
    /// those of a static initializer): they count as steps of `t` and as choices of the
    /// schedule, but are not events. Returns a decision when the strategy ends the execution
    /// here (a replay whose schedule says otherwise).
    pub fn quiet_performed(&mut self, t: ThreadId, n: u64) -> Result<Option<Decision>, ExecError> {
        if self.phase != Phase::Live {
            return Err(ExecError::Ended);
        }
        let s = self.thread(t)?;
        if self.running != Some(t) || s.pending.is_some() || s.finished {
            return Err(ExecError::NotRunning {
                thread: t,
                running: self.running,
            });
        }
        if n == 0 {
            return Ok(None);
        }
        self.schedule.push_many(Choice::Thread(t), n);
        self.steps += n;
        let s = &mut self.threads[t.index()];
        s.performed = s
            .performed
            .saturating_add(n.min(u64::from(u32::MAX)) as u32);
        match self.strategy.skipped(t, n) {
            Ok(()) => Ok(None),
            Err(stop) => self.end(Ending::Stopped, Decision::Stopped(stop)).map(Some),
        }
    }

    /// Picks the next thread and performs its pending operation.
    fn decide(&mut self, running: Option<ThreadId>) -> Result<Decision, ExecError> {
        let unfinished = self.collect_candidates();
        if self.withholding {
            self.timeouts_withheld += 1;
        }
        if self.candidates.is_empty() {
            if !unfinished {
                return self.end(Ending::Finished, Decision::Finished);
            }
            let blocked = self
                .threads
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.finished)
                .filter_map(|(i, s)| s.pending.map(|op| (ThreadId(i as u32), op)))
                .collect();
            return self.end(Ending::Deadlock, Decision::Deadlock { blocked });
        }
        if let Some(blocked) = running.and_then(|r| self.monitor_cycle(r)) {
            return self.end(Ending::Deadlock, Decision::Deadlock { blocked });
        }
        if self.steps >= self.config.max_steps {
            return self.end(Ending::StepBound, Decision::StepBound);
        }
        match self
            .fairness
            .verdict(&self.candidates, self.steps, self.config.livelock_window)
        {
            Verdict::All => {}
            Verdict::WithoutSpinners => {
                let fairness = &self.fairness;
                self.candidates.retain(|c| !fairness.gives_way(c));
            }
            Verdict::Livelock(spinning) => {
                return self.end(Ending::Livelock, Decision::Livelock { spinning })
            }
        }
        let running_enabled = running.is_some_and(|r| {
            self.candidates
                .binary_search_by_key(&r, |c| c.thread)
                .is_ok()
        });
        let view = View {
            enabled: &self.candidates,
            running,
            running_enabled,
            step: self.steps,
            threads: self.threads.len() as u32,
            events: &self.events,
        };
        let picked = match self.strategy.pick(&view) {
            Ok(t) => t,
            Err(stop) => return self.end(Ending::Stopped, Decision::Stopped(stop)),
        };
        let Ok(at) = self.candidates.binary_search_by_key(&picked, |c| c.thread) else {
            return Err(ExecError::StrategyPickedDisabled(picked));
        };
        let Candidate { op, via, .. } = self.candidates[at];
        if via == Via::Spurious {
            self.spurious_used += 1;
        }
        self.preempting = running_enabled && running != Some(picked);
        self.run_picked(picked, op, via)
    }

    /// The running thread `running` performs `next` at once, with no choice of thread: for an
    /// operation the model must see where no thread switch may happen (inside a static
    /// initializer, which holds the class's initialization lock: a thread it starts, a permit
    /// it gives, an interrupt, a notify, a query answered from the model; a monitor entered
    /// inside a quiet stretch or a synchronized JDK method, learnt afterwards). It counts as a
    /// step and a schedule choice of `running`, and strategies hear of it as a skipped step
    /// (as in a quiet stretch), so a replay stays in step. Only for operations enabled now,
    /// and never `Begin`, `End`, `Wait` or `WaitReturn` (a wait always lets others run).
    pub fn perform_now(&mut self, running: ThreadId, next: Op) -> Result<Decision, ExecError> {
        if self.phase != Phase::Live {
            return Err(ExecError::Ended);
        }
        let state = self.thread(running)?;
        let allowed = !matches!(
            next,
            Op::Begin | Op::End | Op::Wait { .. } | Op::WaitReturn { .. }
        );
        if self.running != Some(running)
            || state.pending.is_some()
            || state.finished
            || state.waiting.is_some()
            || !allowed
            || self.enabled_via(running, state, &next) != Some(Via::Ready)
        {
            return Err(ExecError::NotRunning {
                thread: running,
                running: self.running,
            });
        }
        let decision = self.run_picked(running, next, Via::Ready)?;
        match self.strategy.skipped(running, 1) {
            Ok(()) => Ok(decision),
            Err(stop) => self.end(Ending::Stopped, Decision::Stopped(stop)),
        }
    }

    /// Performs `picked`'s operation `op` (enabled because of `via`): records the choice,
    /// applies the operation to the model and logs the event.
    fn run_picked(&mut self, picked: ThreadId, op: Op, via: Via) -> Result<Decision, ExecError> {
        self.schedule.push(Choice::Thread(picked));
        self.steps += 1;
        self.running = Some(picked);
        let occurrence = {
            let s = &mut self.threads[picked.index()];
            s.pending = None;
            let occurrence = s.performed;
            s.performed = s.performed.saturating_add(1);
            occurrence
        };
        let outcome = match self.perform(picked, &op, via) {
            Ok(o) => o,
            Err(Halt::Stop(stop)) => {
                self.push_event(Event::new(picked, &op, occurrence, None));
                return self.end(Ending::Stopped, Decision::Stopped(stop));
            }
            Err(Halt::BadPick(w)) => {
                // The model is half-way through a notify: end the execution.
                self.phase = Phase::Over;
                self.ending = Some(Ending::Stopped);
                return Err(ExecError::StrategyPickedDisabled(w));
            }
        };
        let child = match outcome {
            OpOutcome::Started(c) => Some(c),
            _ => None,
        };
        if via == Via::Timeout {
            self.now_ns = self.now_ns.max(self.threads[picked.index()].deadline);
        }
        self.fairness.performed(picked, &op, via == Via::Timeout);
        let event = Event::new(picked, &op, occurrence, child);
        self.push_event(match outcome {
            OpOutcome::State(state) => event.answered(state.java_ordinal()),
            OpOutcome::Count(n) => event.answered(n),
            OpOutcome::Woke(_) if op == Op::End => match self.threads[picked.index()].object {
                Some(obj) => event.ended_on(obj),
                None => event,
            },
            _ => event,
        });
        if let Op::Exit { status, .. } = op {
            return self.end(Ending::Exit(status), Decision::Exit { status });
        }
        Ok(Decision::Run {
            thread: picked,
            outcome,
        })
    }

    /// Applies `t`'s operation `op` (enabled because of `via`) to the model.
    fn perform(&mut self, t: ThreadId, op: &Op, via: Via) -> Result<OpOutcome, Halt> {
        let ti = t.index();
        let outcome = match *op {
            Op::Begin | Op::Access { .. } | Op::Exit { .. } | Op::ClassInit { .. } => {
                OpOutcome::Normal
            }
            Op::ClassInitWait { .. } => {
                self.threads[ti].init_ended = false;
                OpOutcome::Normal
            }
            Op::End => {
                self.threads[ti].finished = true;
                let object = self.threads[ti].object;
                match object.and_then(|obj| self.monitor_of.get(&obj)) {
                    Some(&m) => {
                        let woken = std::mem::take(&mut self.monitors[m as usize].waiters);
                        for &w in &woken {
                            if let Some(ws) = self.threads[w.index()].waiting.as_mut() {
                                ws.notified = true;
                            }
                        }
                        OpOutcome::Woke(woken)
                    }
                    None => OpOutcome::Normal,
                }
            }
            Op::MonitorEnter { obj, .. } => {
                let m = self.monitor_index(obj) as usize;
                if self.monitors[m].owner.is_none() {
                    self.note_ownership(t, true);
                }
                self.monitors[m].owner = Some(t);
                self.monitors[m].count = self.monitors[m].count.saturating_add(1);
                OpOutcome::Normal
            }
            Op::MonitorExit { obj, .. } => match self.owned_monitor(t, obj) {
                None => OpOutcome::IllegalMonitorState,
                Some(m) => {
                    let mon = &mut self.monitors[m];
                    mon.count = mon.count.saturating_sub(1);
                    if mon.count == 0 {
                        mon.owner = None;
                        self.note_ownership(t, false);
                    }
                    OpOutcome::Normal
                }
            },
            Op::Wait {
                obj, timed, nanos, ..
            } => match self.owned_monitor(t, obj) {
                None => OpOutcome::IllegalMonitorState,
                Some(_) if self.threads[ti].interrupted => {
                    // Java throws at once when the flag is already set; the monitor stays held.
                    self.threads[ti].interrupted = false;
                    OpOutcome::Interrupted
                }
                Some(m) => {
                    let mon = &mut self.monitors[m];
                    let saved_count = mon.count;
                    mon.owner = None;
                    mon.count = 0;
                    mon.waiters.push(t);
                    self.threads[ti].waiting = Some(Waiting {
                        obj,
                        monitor: m as u32,
                        saved_count,
                        timed,
                        notified: false,
                    });
                    self.threads[ti].deadline = if timed {
                        self.now_ns.saturating_add(nanos)
                    } else {
                        u64::MAX
                    };
                    self.note_ownership(t, false);
                    OpOutcome::Normal
                }
            },
            Op::WaitReturn { .. } => {
                let Some(w) = self.threads[ti].waiting.take() else {
                    // Unreachable: WaitReturn is only accepted (and enabled) while waiting.
                    return Ok(OpOutcome::Normal);
                };
                let mon = &mut self.monitors[w.monitor as usize];
                if !w.notified {
                    mon.waiters.retain(|&x| x != t);
                }
                mon.owner = Some(t);
                mon.count = w.saved_count;
                self.note_ownership(t, true);
                match via {
                    Via::Ready | Via::Spurious => OpOutcome::Normal,
                    Via::Timeout => OpOutcome::TimedOut,
                    Via::Interrupt => {
                        self.threads[ti].interrupted = false;
                        OpOutcome::Interrupted
                    }
                }
            }
            Op::Notify { obj, all, .. } => match self.owned_monitor(t, obj) {
                None => OpOutcome::IllegalMonitorState,
                Some(m) => {
                    let woken = if all || self.monitors[m].waiters.len() < 2 {
                        std::mem::take(&mut self.monitors[m].waiters)
                    } else {
                        let waiters = &self.monitors[m].waiters;
                        let w = self
                            .strategy
                            .pick_waiter(obj, waiters)
                            .map_err(Halt::Stop)?;
                        let Some(pos) = waiters.iter().position(|&x| x == w) else {
                            return Err(Halt::BadPick(w));
                        };
                        self.schedule.push(Choice::Waiter(w));
                        vec![self.monitors[m].waiters.remove(pos)]
                    };
                    for &w in &woken {
                        if let Some(ws) = self.threads[w.index()].waiting.as_mut() {
                            ws.notified = true;
                        }
                    }
                    OpOutcome::Woke(woken)
                }
            },
            Op::Start { .. } => {
                let child = ThreadId(self.threads.len() as u32);
                self.threads.push(ThreadState {
                    pending: Some(Op::Begin),
                    ..ThreadState::default()
                });
                OpOutcome::Started(child)
            }
            Op::Join { .. } => match via {
                Via::Interrupt => {
                    self.threads[ti].interrupted = false;
                    OpOutcome::Interrupted
                }
                Via::Timeout => OpOutcome::TimedOut,
                Via::Ready | Via::Spurious => OpOutcome::Normal,
            },
            Op::Sleep { .. } => {
                let s = &mut self.threads[ti];
                s.yields = s.yields.saturating_add(1);
                if s.interrupted {
                    s.interrupted = false;
                    OpOutcome::Interrupted
                } else {
                    // It slept until its deadline: whatever else happened took no time.
                    self.now_ns = self.now_ns.max(s.deadline);
                    OpOutcome::Normal
                }
            }
            Op::Yield { .. } => {
                let s = &mut self.threads[ti];
                s.yields = s.yields.saturating_add(1);
                OpOutcome::Normal
            }
            Op::Interrupt { target, .. } => {
                let s = &mut self.threads[target.index()];
                if !s.finished {
                    s.interrupted = true;
                }
                OpOutcome::Normal
            }
            Op::Interrupted { clear, .. } => {
                let s = &mut self.threads[ti];
                let was = s.interrupted;
                if clear {
                    s.interrupted = false;
                }
                OpOutcome::Bool(was)
            }
            Op::IsInterrupted { target, .. } => {
                OpOutcome::Bool(self.threads[target.index()].interrupted)
            }
            Op::ThreadStatus { target, .. } => OpOutcome::State(self.java_state(target)),
            Op::LiveThreads { .. } => {
                let live = self.threads.iter().filter(|s| !s.finished).count();
                OpOutcome::Count(u32::try_from(live).unwrap_or(u32::MAX))
            }
            Op::Park { .. } => match via {
                Via::Ready => {
                    self.threads[ti].permit = false;
                    OpOutcome::Normal
                }
                // Java's park returns on interrupt without clearing the flag.
                Via::Interrupt => OpOutcome::Interrupted,
                Via::Timeout => OpOutcome::TimedOut,
                Via::Spurious => OpOutcome::Normal,
            },
            Op::Unpark { target, .. } => {
                let s = &mut self.threads[target.index()];
                if !s.finished {
                    s.permit = true;
                }
                OpOutcome::Normal
            }
        };
        Ok(outcome)
    }

    /// Records that `owner` already holds `obj`'s monitor, taken where no scheduling point
    /// saw it (a synchronized JDK method the agent cannot rewrite): the model learns it when
    /// another thread finds the monitor taken. No step and no choice: the take happened
    /// earlier, on `owner`'s own run, and this is when it became known, the same in every run
    /// of the same schedule. A monitor the model already gives to `owner` stays as it is.
    pub fn adopt_monitor(&mut self, owner: ThreadId, obj: ObjId) -> Result<(), ExecError> {
        if self.phase != Phase::Live {
            return Err(ExecError::Ended);
        }
        let state = self.thread(owner)?;
        if state.finished {
            return Err(ExecError::NotRunning {
                thread: owner,
                running: self.running,
            });
        }
        let m = self.monitor_index(obj) as usize;
        match self.monitors[m].owner {
            Some(o) if o == owner => Ok(()),
            Some(o) => Err(ExecError::MonitorHeld { obj, owner: o }),
            None => {
                self.monitors[m].owner = Some(owner);
                self.monitors[m].count = 1;
                self.note_ownership(owner, true);
                Ok(())
            }
        }
    }

    /// How many operations `t` has performed in this execution (the occurrence index its next
    /// event will have).
    pub fn performed(&self, t: ThreadId) -> Option<u32> {
        self.threads.get(t.index()).map(|s| s.performed)
    }

    /// Whether a thread other than `t` owns a monitor (if none does, no monitor enter of `t`
    /// can block, whatever the monitor). Constant time: the agent asks at every point of a
    /// quiet-stretch run.
    pub fn others_own_monitors(&self, t: ThreadId) -> bool {
        let mine = self.threads.get(t.index()).map_or(0, |s| s.owns);
        self.owned_monitors > mine
    }

    /// Thread `t`'s interrupt flag in the model (false for an unknown thread).
    pub fn interrupt_flag(&self, t: ThreadId) -> bool {
        self.threads.get(t.index()).is_some_and(|s| s.interrupted)
    }

    /// Records that `t` took (`taken`) or gave up the ownership of a monitor.
    fn note_ownership(&mut self, t: ThreadId, taken: bool) {
        let owns = &mut self.threads[t.index()].owns;
        if taken {
            *owns += 1;
            self.owned_monitors += 1;
        } else {
            *owns = owns.saturating_sub(1);
            self.owned_monitors = self.owned_monitors.saturating_sub(1);
        }
    }

    /// The arena index of `obj`'s monitor if `t` owns it.
    fn owned_monitor(&self, t: ThreadId, obj: ObjId) -> Option<usize> {
        let &m = self.monitor_of.get(&obj)?;
        (self.monitors[m as usize].owner == Some(t)).then_some(m as usize)
    }
}

#[cfg(test)]
mod tests;
