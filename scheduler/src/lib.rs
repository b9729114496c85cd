//! The controlled scheduler, with no JVM in sight.
//!
//! **Its one job:** given the operations that program threads announce at scheduling points,
//! keep the execution model (threads, monitors, wait sets, joins, sleeps, interrupts, park
//! permits), decide which thread runs next through a [`Strategy`], record the choices as a
//! replayable [`Schedule`] and every performed step as an [`Event`].
//!
//! **Architecture invariant:** no JNI, no I/O, no processes, no clocks. Everything here is a
//! deterministic function of the announced operations and a seeded random source, which is what
//! lets it be tested on simulated programs ([`sim`]).
//!
//! # Background
//!
//! rankcheck runs a JVM program so that exactly one application thread runs at a time. Before
//! each operation that matters (a shared access, a monitor operation, `wait`/`notify`, thread
//! start/join/end, sleep, yield, interrupt, park, exit) the running thread *announces* its next
//! operation ([`Op`]) and the scheduler decides which thread performs its pending operation next
//! ([`Decision`]). Blocking is decided by the model, never by a real JVM block: a
//! `MonitorEnter` is only offered while the model monitor is free or owned by the thread, a
//! `WaitReturn` only once the thread was notified (or times out, is interrupted, or wakes
//! spuriously), a `Join` only once its target has finished, a `Park` only with a permit. The
//! choice among the enabled threads is the [`Strategy`]'s; everything else (thread states,
//! monitor owners and re-entry counts, wait sets with saved counts, interrupt flags, permits,
//! step counting, deadlock detection, the step bound) is the model's.
//!
//! Core types: [`Execution`] (the facade: model + strategy + records), [`Strategy`] (one file
//! per strategy under [`strategy`]), [`Schedule`] (the replayable record of choices) and
//! [`EventLog`] (one [`Event`] per step, the input of happens-before analysis in [`hb`]).
//!
//! # Using it from an agent
//!
//! One [`Execution`] lives for the whole session; it owns the strategy and reuses its buffers.
//!
//! 1. [`Execution::new(config, strategy)`](Execution::new) starts execution 0 with
//!    `ThreadId(0)` (main) and `Begin` pending.
//! 2. The first call is `announce(ThreadId(0), Op::Begin)`.
//! 3. Every answer `Decision::Run { thread, outcome }` names the thread that performs its
//!    pending operation now; the model already contains the effect. That thread (and only it)
//!    runs until its next scheduling point, where it calls `announce(thread, next_op)`. The
//!    `outcome` belongs to *that* thread's pending operation: `Started(child)` for a `Start`
//!    (the child's id), `Interrupted` (throw `InterruptedException`; for `Park` just return),
//!    `TimedOut`, `Woke(waiters)`, `Bool(b)` for queries, `IllegalMonitorState` (throw
//!    `IllegalMonitorStateException`; the model is unchanged).
//! 4. A started child does not announce `Begin`: it waits until some answer names it.
//! 5. `Wait` is two announcements: `Wait { obj, .. }`, and once it is performed with outcome
//!    `Normal`, at once `WaitReturn { obj }` (usually not enabled yet, so another thread is
//!    picked). If `Wait` is performed with `Interrupted` (the flag was already set) or
//!    `IllegalMonitorState`, the thread throws and announces no `WaitReturn`.
//! 6. When a thread's `End` has been performed, call
//!    [`thread_finished(thread)`](Execution::thread_finished) for the next decision.
//! 7. Any other decision ends the execution: `Finished`, `Deadlock { blocked }` (every blocked
//!    thread with its pending op), `StepBound` (too long: not a bug by itself), `Livelock
//!    { spinning }` (every enabled thread spun for the livelock window: [`fairness`]),
//!    `Exit { status }`, `Stopped(reason)` (the
//!    strategy ended it: a diverged replay, pruning — not a bug).
//! 8. [`finish(bug)`](Execution::finish) reports the verdict (uncaught throwable, oracle, …)
//!    and returns whether the strategy wants another execution; it may be called at any time
//!    (watchdog). [`restart()`](Execution::restart) starts the next execution.
//!
//! For reports, [`Execution::status`] says where each thread stands ([`ThreadStatus`]: running,
//! ready with its op, blocked on a monitor and its owner, waiting, joining, parked, finished),
//! [`Execution::monitor`] who holds a monitor, and every [`Op`] displays itself in one line.
//!
//! Wrong calls (a thread that is not the running one, an unknown thread id, `WaitReturn`
//! without `Wait`, …) return an [`ExecError`] and leave the model unchanged; no sequence of
//! calls panics.
//!
//! ```
//! use scheduler::{Config, Decision, Execution, ObjId, Op, OpOutcome, ThreadId};
//! use scheduler::strategy::RandomWalk;
//!
//! let mut exec = Execution::new(Config::default(), RandomWalk::new(42));
//! let main = ThreadId(0);
//! // main: start a child; the child is picked (or main goes on) as the strategy likes.
//! assert_eq!(
//!     exec.announce(main, Op::Begin),
//!     Ok(Decision::Run { thread: main, outcome: OpOutcome::Normal })
//! );
//! let d = exec.announce(main, Op::Start { site: 1 }).unwrap();
//! assert_eq!(d, Decision::Run { thread: main, outcome: OpOutcome::Started(ThreadId(1)) });
//! let lock = Op::MonitorEnter { obj: ObjId(5), site: 2 };
//! match exec.announce(main, lock).unwrap() {
//!     // Either main enters the monitor, or the child performs its Begin first.
//!     Decision::Run { thread, outcome: OpOutcome::Normal } => assert!(thread.0 <= 1),
//!     other => panic!("{other:?}"),
//! }
//! assert_eq!(exec.schedule().len(), 3);
//! ```
//!
//! # Writing a strategy
//!
//! Implement [`Strategy`] in a new file under `src/strategy/` and list it in
//! `strategy/mod.rs`. The lifecycle: `begin_execution(index)`, then one
//! [`pick`](Strategy::pick) per scheduling point, seeing a [`View`] — the enabled threads
//! ([`Candidate`]: thread, pending [`Op`] with its location/variable/write flag, why it is
//! enabled ([`Via`]), its yield count), the running thread and whether it is still enabled
//! (so that switching away is a preemption), the step index, the thread count and the events so
//! far — and one [`pick_waiter`](Strategy::pick_waiter) per `notify` with two waiters or more;
//! finally `end_execution(summary)` says how it went and asks whether to go on. A strategy may
//! answer [`Stop`] to end an execution early. Randomness comes from
//! [`SeededRandom::for_execution(seed, index)`](SeededRandom::for_execution) behind the
//! [`RandomSource`] trait, so execution `i` of a seed is reproducible on its own. A
//! `Box<dyn Strategy + Send>` and a `&mut S` are strategies too. Recording is not a strategy's
//! business: the [`Execution`] records every choice.
//!
//! Strategies here: [`strategy::RandomWalk`], [`strategy::Pct`] (learns `k` from earlier
//! executions), [`strategy::Dfs`] (every schedule), [`strategy::Replay`], and the ones in the
//! other modules of [`strategy`].
//!
//! # Schedules
//!
//! Every thread pick (forced ones too) and every waiter pick is recorded, as runs of equal
//! choices. The text form starts with the version line `rankcheck-schedule 15`, then one choice
//! or run per line: `t3` (thread 3 performed its pending op), `t0*12` (twelve times),
//! `w2` (a `notify` woke waiter 2); see [`schedule`] for the whole layout.
//! [`Schedule::parse`] returns a [`ParseError`] with the line number.
//! [`strategy::Replay`] follows a schedule and stops with [`Stop::Diverged`] (and reports
//! [`strategy::ReplayResult`]) as soon as the program offers a choice the schedule cannot make.
//!
//! # Limitations
//!
//! - Time is virtual: `Sleep` never blocks, and a timed wait/join/park may time out at any
//!   scheduling point (picking it is the timeout). Spurious wake-ups are off by default and, when
//!   on, limited per execution ([`Config::max_spurious_wakeups`]).
//! - Java may either throw or return normally when a waiting thread is both notified and
//!   interrupted; the model returns normally and keeps the flag set.
//! - A thread that ends while owning a model monitor keeps it (the JVM would have thrown or
//!   released it through an instrumented exception handler); others then deadlock visibly.
//! - The event record grows by 32 bytes per step; keep [`Config::max_steps`] in proportion.
//! - The model trusts the agent about object and location identities.
//!
//! # Changes to the agreed shape (`/work/coord/SCHEDULER_API.md`)
//!
//! - `announce` and `thread_finished` return `Result<Decision, ExecError>`.
//! - `Execution` owns its strategy (`Execution<S: Strategy>`; pass `&mut s` to borrow one) and
//!   has `finish(bug) -> Result<bool, _>` (calls `end_execution`) and `restart()`.
//! - New: `Op::IsInterrupted { target, site }` (`isInterrupted()` on any thread; the agreed
//!   `Interrupted { clear }` is the running thread's own flag), `OpOutcome::IllegalMonitorState`,
//!   `Decision::Stopped(Stop)`, `Config::max_spurious_wakeups`.
//! - `Strategy::pick`/`pick_waiter` return [`Pick`] = `Result<ThreadId, Stop>`;
//!   `pick_waiter(obj, waiters)` has a default (longest waiting); `end_execution` receives an
//!   [`ExecutionSummary`].

pub mod bounds;
pub mod cause;
pub mod chunk_plan;
pub mod coverage;
mod events;
mod execution;
pub mod fairness;
pub mod hb;
mod ids;
pub mod minimize;
mod op;
mod rng;
pub mod schedule;
pub mod session_coverage;
pub mod sim;
pub mod strategy;

pub use events::{Event, EventLog};
pub use execution::{Config, ExecError, Execution, StepMark, ThreadStatus, Timeouts};
pub use ids::{Loc, ObjId, SiteId, ThreadId, VarId};
pub use op::{Decision, JavaThreadState, Op, OpKind, OpOutcome};
pub use rng::{mix64, splitmix64, RandomSource, SeededRandom, GOLDEN_GAMMA};
pub use schedule::{Choice, ParseError, Schedule};
pub use strategy::{
    Candidate, Divergence, Ending, ExecutionSummary, Pick, Stop, Strategy, Via, View,
};
