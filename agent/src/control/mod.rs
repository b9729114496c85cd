//! The controller: the agent's one global object ([`CONTROL`]) and its state, in one file per
//! concern — `handoff` (scheduling points, the turn), `quiet` (quiet stretches), `threads`
//! (thread lifecycle), `execution` (execution lifecycle, results), `real_monitors` (monitors
//! taken inside synchronized JDK methods), `watchdog`, `pinned` (pinned
//! nondeterminism), `objects` (ids, [`ExecView`]), `verdict` (how an execution ended, traces,
//! stack trimming), `wait_cycles` (deadlocks a program's end hides, lock cycles as they form), `task_failures` (tasks whose throwable their future kept), `java` (the
//! runtime classes, [`Control::connect`]).
//!
//! The hand-off: exactly one application thread runs at a time, the one the scheduler picked.
//!
//! Every application thread owns a condition variable (all share the one `State` mutex). At a
//! scheduling point the running thread announces its next operation to the model; if the
//! scheduler picks another thread, the running thread stores that thread's outcome in its
//! record, wakes it, and waits on its own condition variable until some thread hands the turn
//! back. A thread that performed `Object.wait` waits in the real `wait()` instead (so the real
//! monitor is released) and is woken by a targeted JVMTI interrupt; program interrupts are
//! modelled and never real, so the real interrupt flag of an application thread is the agent's.
//!
//! An execution ends when the model says so (finished, deadlock, step bound, exit, stopped), an
//! application thread dies of an uncaught throwable, or the watchdog fires. Ending it records the
//! verdict and every thread's stack, then the harness thread (in [`Control::await_execution`])
//! wakes every application thread so that its next hook throws `ExecutionAborted`, stops those
//! blocked where rankcheck cannot see with an asynchronous `ExecutionAborted` (JVMTI
//! `StopThread`), and waits for them to die.

use crate::hash::{mix, splitmix};
use crate::jvmti::{self, Jvmti};
use crate::options::Options;
use crate::report::{ExecutionResult, ThreadStack};
use jni::sys::{jobject, JNIEnv};
use rustc_hash::FxHashMap as IdMap;
use scheduler::{
    Decision, ExecError, Execution, Loc, ObjId, Op, OpKind, OpOutcome, SiteId, Stop, ThreadId,
    ThreadStatus, VarId,
};
use std::cell::{Cell, RefCell};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

mod blockers;
mod class_init;
mod execution;
mod handoff;
mod java;
mod objects;
mod pinned;
mod quiet;
mod real_monitors;
mod task_failures;
mod threads;
mod verdict;
mod wait_cycles;
mod watchdog;

use crate::sites::SiteInfo;
pub use java::JavaRefs;
pub use objects::ExecView;
pub use pinned::BASE_CLOCK_NS;
pub use verdict::trim_frames;

/// The agent, once `Agent_OnLoad` succeeded.
pub static CONTROL: std::sync::OnceLock<Control> = std::sync::OnceLock::new();

/// The model and its strategy, for the whole session.
pub type Model = Execution<Box<dyn scheduler::coverage::Covering>>;

thread_local! {
    /// `(epoch, id)` of the current thread when it is an application thread of execution
    /// `epoch`.
    static ME: Cell<Option<(u32, ThreadId)>> = const { Cell::new(None) };
    /// Classes with a static initializer that this thread prepared and that were
    /// not initialized yet when last looked at (JNI global references): while there are any,
    /// the thread may be running a static initializer, and scheduling points look at its stack.
    static PENDING_INIT: RefCell<Vec<jni::sys::jclass>> = const { RefCell::new(Vec::new()) };
    /// The program's classes whose static initializer this thread began (`RC.classInitBegin`)
    /// and that were not initialized yet when last looked at (JNI global references).
    static RUNNING_INIT: RefCell<Vec<jni::sys::jclass>> = const { RefCell::new(Vec::new()) };
}

/// A thread's list of classes (JNI global references), as [`PENDING_INIT`] and
/// [`RUNNING_INIT`] hold them.
type ClassList = std::thread::LocalKey<RefCell<Vec<jni::sys::jclass>>>;

fn current() -> Option<(u32, ThreadId)> {
    ME.with(|m| m.get())
}

/// Whether the calling thread is an application thread under rankcheck's control (JDK code
/// rewritten at load time also runs on threads rankcheck does not control).
pub fn is_controlled() -> bool {
    current().is_some()
}

/// What a hook should do after its scheduling point.
#[derive(Debug, PartialEq, Eq)]
pub enum Turn {
    /// The calling thread is not under rankcheck's control: do the real operation.
    Pass,
    /// The operation was performed in the model with this outcome; carry on.
    Go(OpOutcome),
    /// (After `Wait`) wait in the real `Object.wait()` until woken, then ask again.
    RealWait,
    /// The execution is over: throw `ExecutionAborted`.
    Abort,
}

/// A stack frame as its method (a `jmethodID`, valid while its class is loaded: for the
/// execution) and bytecode location; named only when a trace is written.
type RawFrame = (usize, i64);

/// Where an application thread is, for the hand-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Not yet at its JVMTI ThreadStart.
    Unborn,
    /// Running (or about to: its turn was handed to it).
    Running,
    /// Waiting on its condition variable for its turn.
    Parked,
    /// In the real `Object.wait()` of a modelled wait.
    RealWait,
    /// Waiting inside the JVM for a class another thread initializes (class_init.rs): it takes
    /// its turn in the JVMTI MonitorWaited callback when the initialization ended.
    InitWait,
    /// Past its JVMTI ThreadEnd.
    Gone,
}

struct ThreadRec {
    cv: Arc<Condvar>,
    /// JNI global reference to the `Thread` object (null until known).
    thread: jobject,
    place: Place,
    /// The outcome of its pending operation, set by whoever picked it.
    resume: Option<OpOutcome>,
    /// Its real `start()` did not start it (an override that never calls `super.start()`).
    phantom: bool,
    /// The agent announced `End` on behalf of this phantom.
    phantom_end: bool,
    /// Performed `End` in the model.
    finished: bool,
    daemon: bool,
    name: String,
    /// The operating system's id of its thread (0 until it started under control).
    os_tid: i32,
    /// JNI global reference to the blocker of its pending `LockSupport.park(blocker)` (null
    /// otherwise): what a deadlock report says it waits for.
    blocker: jobject,
    /// JNI global reference to the JVM's class-initialization lock it waits on inside the JVM
    /// (null otherwise; class_init.rs).
    init_lock: jobject,
    /// What it waits for there, found when it came to wait (reports come after the initializer
    /// unwound).
    init_for: class_init::WaitsFor,
}

// SAFETY: `thread` is a JNI global reference, valid in every thread.
unsafe impl Send for ThreadRec {}

/// A JNI weak global reference to a thread: valid on any thread, compared with
/// `IsSameObject`.
#[derive(Clone, Copy)]
pub(super) struct KnownThread(pub jobject);

// SAFETY: a weak global reference may be used from any thread attached to the JVM.
unsafe impl Send for KnownThread {}

impl ThreadRec {
    fn new(place: Place) -> ThreadRec {
        ThreadRec {
            cv: Arc::new(Condvar::new()),
            thread: std::ptr::null_mut(),
            place,
            resume: None,
            phantom: false,
            phantom_end: false,
            finished: false,
            daemon: false,
            name: String::new(),
            os_tid: 0,
            blocker: std::ptr::null_mut(),
            init_lock: std::ptr::null_mut(),
            init_for: class_init::WaitsFor::default(),
        }
    }
}

/// How an execution ended (before the harness's oracles add theirs).
#[derive(Clone, Debug)]
pub struct End {
    /// `finished`, `exit`, `uncaught`, `deadlock`, `step-bound`, `timeout`, `blocked`,
    /// `diverged`, `pruned`, `internal`.
    pub kind: &'static str,
    pub bug: bool,
    pub message: String,
    /// Which bound ended it: `steps`, `wall-clock`, `watchdog`; `uncontrolled` when program
    /// threads ran outside rankcheck's control.
    pub bound: Option<&'static str>,
    pub exit_status: Option<i32>,
    /// An uncaught throwable's printed stack trace.
    pub trace: Option<String>,
}

/// One execution's agent-side state.
struct Exec {
    epoch: u32,
    index: u64,
    threads: Vec<ThreadRec>,
    /// `ObjId` of a `Thread` object → its application thread.
    thread_of: IdMap<u64, ThreadId>,
    next_obj: u64,
    /// What is known of the objects' variables (allocation records, run-time names).
    names: crate::naming::Names,
    /// Threads really started and not yet past ThreadEnd (the root included).
    live: i64,
    end: Option<End>,
    /// The thread that ended the execution as it was about to wait, in a lock cycle
    /// (wait_cycles.rs), and its park or monitor entry: waiting, for its stack's words and the
    /// trace's blocked steps, though the model never saw it wait.
    waiting_at_end: Option<(ThreadId, Op)>,
    stacks_ready: bool,
    stacks: Vec<ThreadStack>,
    /// Bumped at every step: the watchdog's heartbeat.
    progress: u64,
    started: Instant,
    /// Virtual clock, nanoseconds since the epoch.
    clock_ns: u64,
    /// What the clock advanced by at its last reading by a spinning thread (0: the last reading
    /// was not one); see `Control::clock_ns`.
    spin_clock_ns: u64,
    rng: u64,
    notes: Vec<String>,
    /// Names of the program's threads that started during this execution without passing
    /// through rankcheck (reflection, JNI, JDK code it does not rewrite): they ran
    /// uncontrolled, so the execution says nothing about the program unless it failed.
    uncontrolled: Vec<String>,
    /// The open quiet stretch: the thread that may pass data accesses in Java, and how many it
    /// was granted (see `RC.quietLeft`).
    quiet: Option<(ThreadId, u64)>,
    /// The thread `RC.quietThread` holds (so it is written only when it changes).
    quiet_thread: Option<ThreadId>,
    /// Objects touched inside the JDK's collections, and by whom (confinement.rs).
    confinement: crate::confinement::Confinement,
    /// Provisional ids of objects the confinement check or [`Control::allocated`] met before
    /// any scheduling point did (with [`PROVISIONAL_ID`] set).
    next_confinement_id: u64,
    /// Plain and `java.util.concurrent` objects the program made in this execution, by their id (a
    /// provisional one until a scheduling point meets them): the key of their pinned identity
    /// hash (pinned.rs), fixed when they were made, so a later id does not change it.
    young: IdMap<u64, u64>,
    /// Real monitors some thread found taken where no scheduling point saw it
    /// (real_monitors.rs).
    real_monitors: Vec<real_monitors::RealMonitor>,
    /// The holds the model adopted (real_monitors.rs), for traces: `(number of events before
    /// it, holder, monitor, site)`.
    adoptions: Vec<(usize, ThreadId, ObjId, SiteId)>,
    /// Synchronizers one thread used alone and then another touched (confinement.rs), for
    /// traces: where the first thread's last write alone would stand.
    handovers: Vec<Handover>,
    /// Reads a thread made of a synchronizer it alone had used, no scheduling points, found as
    /// another thread's access shared it: the model's fairness learns them at that point
    /// (`Model::read_unseen`), so that this access's write tells the reader something new.
    unseen_reads: Vec<(ThreadId, Loc)>,
    /// With `trace=on`: the operations (thread, occurrence) that were a library's own
    /// bookkeeping (`juc::library_internal`), marked in the trace.
    library_ops: rustc_hash::FxHashSet<(u32, u32)>,
    /// With `trace=on`: for operations (thread, occurrence) at JDK sites, the program's frame
    /// that called into the JDK (`juc::program_caller`).
    callers: IdMap<(u32, u32), RawFrame>,
    /// With `trace=on`: for objects still used by one thread alone at JDK sites, the program's
    /// frame under that thread's last write (`true`) and last read (`false`) of each, so that a
    /// hand-over's steps name the program's lines.
    alone_callers: IdMap<(u64, bool), RawFrame>,
    /// Those of the object the last touch shared (its last write's, its last read's), for
    /// `ExecView::note_handover`.
    handed_callers: [Option<RawFrame>; 2],
    /// Stack walks for callers outside scheduling points so far ([`Exec::may_walk_for_caller`]).
    caller_walks: u32,
    /// The value `RC.quietCovers` holds (likewise).
    quiet_covers: i32,
    /// The program's classes whose static initializer a thread began (`RC.classInitBegin`)
    /// while other threads existed, and that may not be initialized yet: the thread, and the
    /// class (a JNI global reference). class_init.rs.
    inits: Vec<class_init::Initializing>,
    /// How many class initializations began (numbers them).
    inits_begun: u32,
    /// Tasks whose throwable was kept in their future (task_failures.rs), in order.
    task_failures: Vec<task_failures::TaskFailure>,
    /// With `trace=on`: what each access location is, `(object id, array index or -1)`
    /// (object 0: a static field), for the result's `steps_trace`.
    locs: IdMap<u64, (u64, i32)>,
}

/// Stack walks for the program's frame of an operation that is no scheduling point (an access
/// alone, an untracked one) allowed per traced execution: such operations are cheap, a walk
/// costs microseconds, and a long replay should not become many times slower for the sake of
/// its explanation's line numbers (past the budget, those steps are placed in the JDK).
const CALLER_WALKS: u32 = 100_000;

impl Exec {
    /// Whether one more such walk is within [`CALLER_WALKS`] (counting it).
    fn may_walk_for_caller(&mut self) -> bool {
        self.caller_walks += 1;
        self.caller_walks <= CALLER_WALKS
    }
}

/// A `java.util.concurrent` object whose first thread wrote (or only read) it with no event
/// (confinement.rs) before a second thread's (`to`) access `site` made it shared: the trace
/// shows that write, and the last read alone after it, as learnt steps of `first` after the
/// execution's first `at` events, at their own sites and the location `loc` the second
/// thread's access touched, so that
/// explanations see it (a get before another thread's set, then a set of its own); and what
/// `first` did before a write happens before what `to` does after (objects.rs,
/// `settle_confinement`).
#[derive(Clone, Debug)]
pub(crate) struct Handover {
    /// The program's frame under the access, when traced (`Exec::alone_callers`).
    caller: Option<RawFrame>,
    at: usize,
    first: ThreadId,
    to: ThreadId,
    obj: ObjId,
    loc: Loc,
    site: SiteId,
    /// The first thread wrote the object alone; else it only read it, and the step is its
    /// last read alone (a read orders nothing after it).
    wrote: bool,
}

struct State {
    model: Model,
    /// Whether `model.finish` was called for the current execution (so `restart` comes next).
    finished_in_model: bool,
    epoch: u32,
    exec: Option<Exec>,
    /// No more executions.
    done: bool,
    executions: u64,
    bugs: u64,
    /// Executions rankcheck could not control (watchdog, wall-clock bound).
    inconclusive: u64,
    /// Those of the current chunk (`Options::chunk_plan`; the whole run without one).
    chunk_inconclusive: u64,
    /// The execution to run after the one finished, when a chunk plan decides it.
    next_index: Option<u64>,
    sites: IdMap<i64, SiteInfo>,
    /// Where each site is, for messages (`crate::sites::place`).
    site_places: IdMap<i64, Box<str>>,
    /// Each site's table line (`crate::sites::Parsed::lines`), for traces.
    site_lines: IdMap<i64, Box<str>>,
    /// Which methods (by jmethodID) are static initializers, learnt as they are met.
    clinit_methods: IdMap<usize, bool>,
    results: crate::report::Sink,
    /// The class loader of the current execution's program (pinned.rs).
    program_loader: pinned::ProgramLoader,
    /// Weak references to the threads alive when the first execution began and to every
    /// thread seen starting untagged since (threads.rs: `note_unseen_threads`).
    known_threads: Vec<KnownThread>,
    /// Whether `known_threads` holds the threads of the first execution's start yet.
    known_taken: bool,
}

/// The agent's one global object.
pub struct Control {
    pub jvmti: Jvmti,
    pub options: Options,
    state: Mutex<State>,
    harness_cv: Condvar,
    /// Global references of JNI classes and the abort throwable, set by `connect` (outside the
    /// state lock, so that it can be read anywhere).
    java: std::sync::OnceLock<java::JavaRefs>,
    session_start: Instant,
    /// The JVM's own main class runs under the agent (plain.rs): one execution, ended by the
    /// monitor thread.
    pub plain: std::sync::atomic::AtomicBool,
    /// JDK counters put back before every execution (pinned_jdk.rs).
    pinned_jdk: Mutex<crate::pinned_jdk::Pinned>,
    /// What the strategy's description says, asked once: hooks that run at every access or
    /// allocation read these instead of looking the strategy up by name each time.
    strategy_traits: StrategyTraits,
}

/// The parts of the strategy's description (`scheduler::strategy`) the hooks consult.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StrategyTraits {
    /// It may switch threads at a data access (not only at synchronization).
    pub switches_at_accesses: bool,
    /// It bounds the variables accessed (so allocation records name them).
    pub bounds_variables: bool,
}

impl StrategyTraits {
    fn of(strategy: &str) -> Self {
        StrategyTraits {
            switches_at_accesses: scheduler::strategy::switches_at_accesses(strategy),
            bounds_variables: scheduler::strategy::bounds_variables(strategy),
        }
    }
}

/// Marks a provisional object id (low 32 bits of a tag), given by the confinement check or to an
/// allocation, not yet an [`ObjId`] of the execution: only a scheduling point gives those, so
/// that they count the same in a replay whatever else met the object first.
const PROVISIONAL_ID: u64 = 1 << 31;

impl Control {
    pub fn new(jvmti: Jvmti, options: Options, model: Model, results: crate::report::Sink) -> Self {
        Control {
            jvmti,
            strategy_traits: StrategyTraits::of(&options.strategy),
            options,
            state: Mutex::new(State {
                model,
                finished_in_model: false,
                epoch: 0,
                exec: None,
                done: false,
                executions: 0,
                bugs: 0,
                inconclusive: 0,
                chunk_inconclusive: 0,
                next_index: None,
                sites: IdMap::default(),
                site_places: IdMap::default(),
                site_lines: IdMap::default(),
                clinit_methods: IdMap::default(),
                results,
                program_loader: pinned::ProgramLoader::NONE,
                known_threads: Vec::new(),
                known_taken: false,
            }),
            harness_cv: Condvar::new(),
            java: std::sync::OnceLock::new(),
            session_start: Instant::now(),
            plain: std::sync::atomic::AtomicBool::new(false),
            pinned_jdk: Mutex::new(Default::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the state usable: every field stays consistent
        // per operation.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called when the harness connects (the references also mean "connected").
    pub fn set_java(&self, refs: java::JavaRefs) {
        let _ = self.java.set(refs);
    }

    /// At VM death: a JVM whose main class was not the harness ran nothing under control; say
    /// so instead of letting the user believe the program was tested.
    pub fn vm_death(&self) {
        if self.is_plain() {
            // The process ends in the monitor thread once the result is written (an exit
            // rankcheck did not see, e.g. from uninstrumented code, ends the execution here).
            self.end_unseen_exit();
            threads::hold_main();
            return;
        }
        if self.java.get().is_none() {
            eprintln!(
                "rankcheck agent: no execution ran (see the error above; the runtime classes \
                 must be on the class path: -cp APP:rankcheck-rt.jar MAIN, see agent/PROTOCOL.md)"
            );
        }
        self.exit_status();
    }

    pub fn java(&self) -> Option<java::JavaRefs> {
        self.java.get().copied()
    }

    /// Adds site tables to the agent's (the harness's offline tables, and classes rewritten at
    /// load time, in any order); the tracked-variable lines of a class path instrumented for a
    /// variable set go to [`crate::naming::register`]. True when one of the sites calls the
    /// platform MBean server (the harness then creates it before the first execution).
    pub fn load_site_table(&self, text: &str) -> bool {
        let (sites, allocs) = crate::sites::parse_records(text);
        crate::naming::register(text, &allocs);
        let mut st = self.lock();
        st.sites.extend(sites.infos);
        st.site_places.extend(sites.places);
        st.site_lines.extend(sites.lines);
        sites.uses_mbean_server
    }

    pub fn exit_status(&self) -> i32 {
        let mut st = self.lock();
        st.results.flush();
        i32::from(st.bugs > 0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Wait on the thread's condition variable for its turn.
    Condvar,
    /// Return `RealWait`: the caller waits in the real `Object.wait()`.
    RealWait,
    /// The thread waits inside the JVM for a class initialization (announced on its behalf by
    /// the harness thread): hand the turn on and return.
    InitWait,
    /// The thread finished: hand the turn on and leave.
    Leave,
}

fn live(st: &State, epoch: u32) -> bool {
    st.epoch == epoch && st.exec.as_ref().is_some_and(|e| e.end.is_none())
}
