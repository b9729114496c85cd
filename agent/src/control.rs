//! The hand-off: exactly one application thread runs at a time, the one the scheduler picked.
//!
//! Every application thread owns a condition variable (all share the one [`State`] mutex). At a
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
use std::cell::Cell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The model and its strategy, for the whole session.
pub type Model = Execution<Box<dyn scheduler::coverage::Covering>>;

thread_local! {
    /// `(epoch, id)` of the current thread when it is an application thread of execution
    /// `epoch`.
    static ME: Cell<Option<(u32, ThreadId)>> = const { Cell::new(None) };
    /// Classes with a static initializer that this thread prepared and that were
    /// not initialized yet when last looked at (JNI global references): while there are any,
    /// the thread may be running a static initializer, and scheduling points look at its stack.
    static PENDING_INIT: std::cell::RefCell<Vec<jni::sys::jclass>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

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
}

// SAFETY: `thread` is a JNI global reference, valid in every thread.
unsafe impl Send for ThreadRec {}

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
    /// Which bound ended it: `steps`, `wall-clock`, `watchdog`.
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
    stacks_ready: bool,
    stacks: Vec<ThreadStack>,
    /// Bumped at every step: the watchdog's heartbeat.
    progress: u64,
    started: Instant,
    /// Virtual clock, nanoseconds since the epoch.
    clock_ns: u64,
    rng: u64,
    notes: Vec<String>,
    /// The open quiet stretch: the thread that may pass data accesses in Java, and how many it
    /// was granted (see `RC.quietLeft`).
    quiet: Option<(ThreadId, u64)>,
    /// The thread `RC.quietThread` holds (so it is written only when it changes).
    quiet_thread: Option<ThreadId>,
    /// Objects touched inside the JDK's collections, and by whom (confinement.rs).
    confinement: crate::confinement::Confinement,
    /// Ids of objects the confinement check met before any scheduling point did (with
    /// [`CONFINEMENT_ID`] set).
    next_confinement_id: u64,
    /// The value `RC.quietCovers` holds (likewise).
    quiet_covers: i32,
    /// With `trace=on`: what each access location is, `(object id, array index or -1)`
    /// (object 0: a static field), for the result's `steps_trace`.
    locs: IdMap<u64, (u64, i32)>,
}

/// What the harness needs to know about a site (from the site table).
#[derive(Clone, Copy, Debug)]
pub struct SiteInfo {
    /// Identity of the field (hash of `owner.name:descriptor`), 0 for arrays and non-data sites.
    pub field: u64,
    pub is_static: bool,
    /// In a static initializer: never a scheduling point. A thread preempted inside `<clinit>`
    /// would block every other thread that touches the class in the JVM's class-initialization
    /// lock, where rankcheck cannot see (JVMS §5.5).
    pub clinit: bool,
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
    sites: IdMap<i64, SiteInfo>,
    /// Where each site is, for messages (`crate::sites::place`).
    site_places: IdMap<i64, Box<str>>,
    /// Which methods (by jmethodID) are static initializers, learnt as they are met.
    clinit_methods: IdMap<usize, bool>,
    results: crate::report::Sink,
}

/// The agent's one global object.
pub struct Control {
    pub jvmti: Jvmti,
    pub options: Options,
    state: Mutex<State>,
    harness_cv: Condvar,
    /// Global references of JNI classes and the abort throwable, set by `connect` (outside the
    /// state lock, so that it can be read anywhere).
    java: std::sync::OnceLock<crate::natives::JavaRefs>,
    session_start: Instant,
    /// The JVM's own main class runs under the agent (plain.rs): one execution, ended by the
    /// monitor thread.
    pub plain: std::sync::atomic::AtomicBool,
    /// JDK counters put back before every execution (pinned_jdk.rs).
    pinned_jdk: Mutex<crate::pinned_jdk::Pinned>,
}

/// Marks an object id (low 32 bits of a tag) given by the confinement check, not yet an
/// [`ObjId`] of the execution.
const CONFINEMENT_ID: u64 = 1 << 31;

/// Bits of `RC.quietCovers` (see RC.java).
const QUIET_COVERS_INTERRUPT_QUERIES: i32 = 1;
const QUIET_COVERS_MONITORS: i32 = 2;

pub const BASE_CLOCK_NS: u64 = 1_600_000_000_000_000_000;

impl Control {
    pub fn new(jvmti: Jvmti, options: Options, model: Model, results: crate::report::Sink) -> Self {
        Control {
            jvmti,
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
                sites: IdMap::default(),
                site_places: IdMap::default(),
                clinit_methods: IdMap::default(),
                results,
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
    pub fn set_java(&self, refs: crate::natives::JavaRefs) {
        let _ = self.java.set(refs);
    }

    /// At VM death: a JVM whose main class was not the harness ran nothing under control; say
    /// so instead of letting the user believe the program was tested.
    pub fn vm_death(&self) {
        if self.is_plain() {
            // The process ends in the monitor thread once the result is written (an exit
            // rankcheck did not see, e.g. from uninstrumented code, ends the execution here).
            self.end_unseen_exit();
            crate::plain::hold_main();
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

    pub fn java(&self) -> Option<crate::natives::JavaRefs> {
        self.java.get().copied()
    }

    /// Adds sites to the table (the harness's offline tables, and classes rewritten at load
    /// time, in any order).
    pub fn load_sites(&self, sites: crate::sites::Parsed) {
        let mut st = self.lock();
        st.sites.extend(sites.infos);
        st.site_places.extend(sites.places);
    }

    // ---- object identities -----------------------------------------------------------------

    /// The object's id in the current execution (tags carry the epoch so that ids restart at 1
    /// in every execution, as they do in a fresh JVM).
    fn obj_id(&self, ex: &mut Exec, obj: jobject) -> ObjId {
        if obj.is_null() {
            return ObjId(0);
        }
        if let Some(id) = self.tagged_id(ex.epoch, obj) {
            if id & CONFINEMENT_ID == 0 {
                return ObjId(id);
            }
            // Known so far only to the confinement check: it gets its id now, in the order
            // of the execution's scheduling points.
            ex.next_obj += 1;
            let fresh = ex.next_obj;
            ex.confinement.renamed(id, fresh);
            let _ = self
                .jvmti
                .set_tag(obj, ((ex.epoch as i64) << 32) | fresh as i64);
            return ObjId(fresh);
        }
        ex.next_obj += 1;
        let id = ex.next_obj;
        let _ = self
            .jvmti
            .set_tag(obj, ((ex.epoch as i64) << 32) | id as i64);
        ObjId(id)
    }

    /// The id `obj`'s tag gives it in execution `epoch` (none: untagged in this execution).
    fn tagged_id(&self, epoch: u32, obj: jobject) -> Option<u64> {
        let tag = self.jvmti.get_tag(obj).unwrap_or(0);
        (tag != 0 && (tag >> 32) as u32 == epoch).then_some((tag & 0xffff_ffff) as u64)
    }

    /// The class names of execution `epoch`'s objects `ids` that are still alive, by id.
    fn classes(&self, epoch: u32, ids: &[u64]) -> IdMap<u64, String> {
        let tags: Vec<i64> = ids
            .iter()
            .map(|&id| ((epoch as i64) << 32) | id as i64)
            .collect();
        self.jvmti
            .classes_of_tags(crate::ffi::current_env(), &tags)
            .into_iter()
            .map(|(tag, class)| ((tag & 0xffff_ffff) as u64, class))
            .collect()
    }

    fn thread_of(&self, ex: &mut Exec, thread: jobject) -> Option<ThreadId> {
        let id = self.obj_id(ex, thread);
        ex.thread_of.get(&id.0).copied()
    }

    // ---- scheduling points -----------------------------------------------------------------

    /// A scheduling point of the current thread: announce `make(..)`'s operation and return
    /// when the thread may perform it.
    pub fn point(&self, make: impl FnOnce(&Control, &mut ExecView<'_>) -> Option<Op>) -> Turn {
        self.point_for(false, make)
    }

    /// [`Control::point`]; with `for_application`, the operation is the application's even
    /// when JDK code performs it (a fork/join worker a parallel stream starts: the program's
    /// tasks run on it), or the caller has already decided that it is (`make` returns `None`
    /// for the JDK's own uses).
    pub fn point_for(
        &self,
        for_application: bool,
        make: impl FnOnce(&Control, &mut ExecView<'_>) -> Option<Op>,
    ) -> Turn {
        let Some((epoch, me)) = current() else {
            return Turn::Pass;
        };
        let mut st = self.lock();
        if !live(&st, epoch) {
            // The execution is over. Under JDK code (a dying thread's cached buffer freed by
            // the JDK's cleaner, which answers any exception with System.exit(1)) the real
            // operation runs; the program's own code unwinds.
            drop(st);
            return if crate::juc::under_jdk_code(self.jvmti) {
                Turn::Pass
            } else {
                Turn::Abort
            };
        }
        if let Some(decision) = self.close_quiet(&mut st, me) {
            return self.settle(st, epoch, me, decision, Mode::Condvar);
        }
        let op = {
            let State { exec, sites, .. } = &mut *st;
            let ex = exec.as_mut().expect("live execution");
            let mut view = ExecView { ex, sites, me };
            make(self, &mut view)
        };
        let Some(op) = op else {
            return Turn::Pass;
        };
        // Rewritten java.util.concurrent code used by the JDK itself, and code run by a static
        // initializer: not scheduling points. An access to an object or static outside the
        // tracked variable set (naming.rs), and an access in an application class's static
        // initializer, still count as a step of their thread, as they do when they pass in Java
        // inside a quiet stretch, so that a schedule means the same whichever way the access
        // went; the others depend on what the JVM did before (a JDK class initializes once per
        // JVM), so they are no step at all, or a schedule would not replay in a fresh JVM.
        let untracked = matches!(op, Op::Access { var, .. } if var == crate::naming::UNTRACKED);
        let jdk_own = |s: SiteId| !for_application && crate::juc::internal_use(self.jvmti, s);
        let app_clinit = op.site().is_some_and(|s| {
            st.sites.get(&s).is_some_and(|i| i.clinit) && !crate::juc::is_jdk_site(s)
        });
        let not_a_point = untracked
            || op.site().is_some_and(jdk_own)
            || op
                .site()
                .and_then(|s| st.sites.get(&s))
                .is_some_and(|s| s.clinit)
            || (self.options.clinit_check
                && st.model.thread_count() > 1
                && self.initializing()
                && self.in_clinit(&mut st.clinit_methods));
        let counted = untracked || app_clinit;
        if not_a_point {
            // A thread a static initializer starts (a pool it prestarts) must still be a model
            // thread, or it would run uncontrolled: its start is performed at once, without a
            // choice of thread. (The JDK's own threads, started under JDK code, stay its own.)
            if matches!(op, Op::Start { .. }) && !op.site().is_some_and(jdk_own) {
                let decision = st.model.perform_now(me, op);
                return self.settle(st, epoch, me, decision, Mode::Condvar);
            }
            if counted && matches!(op, Op::Access { .. }) {
                if let Ok(Some(decision)) = st.model.quiet_performed(me, 1) {
                    return self.settle(st, epoch, me, Ok(decision), Mode::Condvar);
                }
            }
            return Turn::Pass;
        }
        let decision = st.model.announce(me, op);
        self.settle(st, epoch, me, decision, Mode::Condvar)
    }

    /// JVMTI ClassPrepare, on the preparing thread: remember classes with a static initializer
    /// prepared by an application thread (their initialization normally follows at once, on
    /// the same thread; JDK classes count too, since load-time rewriting puts scheduling points
    /// into some of them).
    pub fn class_prepared(&self, env: *mut JNIEnv, klass: jni::sys::jclass) {
        if current().is_none() || !self.options.clinit_check {
            return;
        }
        if self.jvmti.has_clinit(klass) {
            let global = crate::ffi::new_global(env, klass);
            PENDING_INIT.with(|p| p.borrow_mut().push(global));
        }
    }

    /// Whether a class this thread prepared may still be being initialized (the cheap test
    /// before the stack walk of [`in_clinit`](Self::in_clinit)).
    fn initializing(&self) -> bool {
        PENDING_INIT.with(|p| {
            let mut pending = p.borrow_mut();
            if pending.is_empty() {
                return false;
            }
            let done = crate::jvmti_sys::JVMTI_CLASS_STATUS_INITIALIZED
                | crate::jvmti_sys::JVMTI_CLASS_STATUS_ERROR;
            let env = crate::ffi::current_env();
            pending.retain(|&k| {
                let finished = self.jvmti.class_status(k).map_or(true, |s| s & done != 0);
                if finished && !env.is_null() {
                    crate::ffi::delete_global(env, k);
                }
                !finished
            });
            !pending.is_empty()
        })
    }

    /// Forgets this thread's pending classes (at its end).
    fn forget_pending(env: *mut JNIEnv) {
        PENDING_INIT.with(|p| {
            for k in p.borrow_mut().drain(..) {
                crate::ffi::delete_global(env, k);
            }
        });
    }

    /// Whether the current thread runs a static initializer (its own, or one it triggered):
    /// preempting it there would leave every other thread that touches the class blocked in
    /// the JVM's class-initialization lock (JVMS §5.5), where rankcheck cannot see. So code run
    /// by a static initializer has no scheduling points, as if it were atomic.
    fn in_clinit(&self, known: &mut IdMap<usize, bool>) -> bool {
        let mut methods = [std::ptr::null_mut(); 48];
        let n = self.jvmti.current_methods(&mut methods);
        methods[..n].iter().any(|&m| {
            *known
                .entry(m as usize)
                .or_insert_with(|| self.jvmti.is_clinit(m))
        })
    }

    /// Like [`point`](Self::point) for `Wait`: after the model performed it, announces
    /// `WaitReturn` and, unless picked at once, tells the caller to wait for real.
    pub fn wait(&self, obj: jobject, timed: bool, site: SiteId) -> Turn {
        let mut obj_id = ObjId(0);
        let turn = self.point(|c, v| {
            obj_id = c.obj_id(v.ex, obj);
            Some(Op::Wait {
                obj: obj_id,
                timed,
                site,
            })
        });
        match turn {
            Turn::Go(OpOutcome::Normal) => {}
            other => return other,
        }
        let (epoch, me) = current().expect("application thread");
        let st = self.lock();
        if !live(&st, epoch) {
            return Turn::Abort;
        }
        let mut st = st;
        let decision = st.model.announce(me, Op::WaitReturn { obj: obj_id });
        self.settle(st, epoch, me, decision, Mode::RealWait)
    }

    /// After the real `Object.wait()` of a modelled wait returned: is it this thread's turn?
    pub fn wait_returned(&self) -> Turn {
        let Some((epoch, me)) = current() else {
            return Turn::Pass;
        };
        let mut st = self.lock();
        if !live(&st, epoch) {
            return Turn::Abort;
        }
        let rec = &mut st.exec.as_mut().unwrap().threads[me.index()];
        match rec.resume.take() {
            Some(outcome) => {
                rec.place = Place::Running;
                Turn::Go(outcome)
            }
            None => Turn::RealWait,
        }
    }

    /// Applies `decision` (the model's answer to `me`'s announcement): hands the turn to the
    /// picked thread, or ends the execution, then waits (per `mode`) until it is `me`'s turn.
    fn settle(
        &self,
        mut st: MutexGuard<'_, State>,
        epoch: u32,
        me: ThreadId,
        mut decision: Result<Decision, ExecError>,
        mode: Mode,
    ) -> Turn {
        // The picked thread's condition variable, notified only after the state lock is
        // released: application threads share one CPU, and a thread woken while the waker still
        // holds the lock runs at once, finds the lock taken and sleeps again (three switches
        // per hand-off instead of one).
        let mut wake = None;
        loop {
            match decision {
                Ok(Decision::Run { thread, outcome }) => {
                    let ex = st.exec.as_mut().unwrap();
                    ex.progress += 1;
                    if thread == me && mode != Mode::Leave {
                        ex.threads[me.index()].place = Place::Running;
                        if mode == Mode::Condvar {
                            self.open_quiet(&mut st, me);
                        }
                        return Turn::Go(outcome);
                    }
                    if ex.threads[thread.index()].phantom {
                        let rec = &mut ex.threads[thread.index()];
                        // A thread whose start() never started it: it begins and ends at once.
                        decision = if rec.phantom_end {
                            rec.finished = true;
                            st.model.thread_finished(thread)
                        } else {
                            rec.phantom_end = true;
                            st.model.announce(thread, Op::End)
                        };
                        continue;
                    }
                    let rec = &mut ex.threads[thread.index()];
                    rec.resume = Some(outcome);
                    match rec.place {
                        Place::Parked => wake = Some(rec.cv.clone()),
                        Place::RealWait => {
                            let _ = self.jvmti.interrupt(rec.thread);
                        }
                        // Not yet registered (it finds `resume` when it is), or already gone.
                        _ => {}
                    }
                    break;
                }
                Ok(terminal) => {
                    let end = self.end_of(&st, terminal);
                    drop(st);
                    self.end_execution(epoch, end);
                    return Turn::Abort;
                }
                Err(e) => {
                    drop(st);
                    self.internal_error(epoch, format!("scheduler: {e}"));
                    return Turn::Abort;
                }
            }
        }
        // `me` stops being the running thread before the lock goes; a turn handed back to it
        // meanwhile waits in its `resume`, which `await_turn` reads before it sleeps.
        let rec = &mut st.exec.as_mut().unwrap().threads[me.index()];
        match mode {
            Mode::Leave => {}
            Mode::RealWait => rec.place = Place::RealWait,
            Mode::Condvar => rec.place = Place::Parked,
        }
        drop(st);
        if let Some(cv) = wake {
            cv.notify_one();
        }
        match mode {
            Mode::Leave => Turn::Go(OpOutcome::Normal),
            Mode::RealWait => Turn::RealWait,
            Mode::Condvar => self.await_turn(self.lock(), epoch, me),
        }
    }

    /// `me` goes on running: if the strategy grants a quiet stretch, `RC` learns it. The grant
    /// is all the strategy allows, up to the step bound, in one piece: an endless loop still
    /// ends at `max-steps`, the watchdog still sees a computing thread as busy (its CPU time),
    /// and a timeout still stops it (JVMTI StopThread). Handing out the budget in chunks (a
    /// million accesses each, until 0.3.0) made the JIT compile the hook's call into the agent
    /// into every hot loop, which cost MolDyn's loops 60 % (one tracked array: 1.69 s against
    /// 1.06 s with one grant).
    fn open_quiet(&self, st: &mut State, me: ThreadId) {
        // Only the non-preemptive baseline, never a search or a replay: an access that passes
        // in Java is a step even where the agent would not count one (the JDK's own use of
        // java.util.concurrent, a JDK static initializer — both depend on what the JVM did
        // before), so a schedule recorded with stretches may not replay without them, and the
        // other way round.
        if self.options.strategy != "nonpreemptive" || self.options.replay.is_some() {
            return;
        }
        let budget = st.model.quiet_budget(me);
        if budget == 0 {
            return;
        }
        let (Some(refs), Some(ex)) = (self.java(), st.exec.as_mut()) else {
            return;
        };
        let thread = ex.threads[me.index()].thread;
        if thread.is_null() {
            return;
        }
        if ex.quiet_thread != Some(me) {
            crate::natives::set_quiet_thread(&refs, thread);
            ex.quiet_thread = Some(me);
        }
        // Interrupt queries and monitor operations that cannot block pass too; the model's
        // state they depend on cannot change while `me` alone runs without the agent.
        let mut covers = 0;
        if !st.model.interrupt_flag(me) {
            covers |= QUIET_COVERS_INTERRUPT_QUERIES;
        }
        if !st.model.others_own_monitors(me) {
            covers |= QUIET_COVERS_MONITORS;
        }
        if ex.quiet_covers != covers {
            crate::natives::set_quiet_covers(&refs, covers);
            ex.quiet_covers = covers;
        }
        crate::natives::set_quiet_left(&refs, budget);
        ex.quiet = Some((me, budget));
    }

    /// `me` is back in the agent: the accesses it passed in Java during its quiet stretch become
    /// steps of the model. A decision comes back when the strategy ends the execution there.
    fn close_quiet(&self, st: &mut State, me: ThreadId) -> Option<Result<Decision, ExecError>> {
        let ex = st.exec.as_mut()?;
        match ex.quiet {
            Some((holder, granted)) if holder == me => {
                ex.quiet = None;
                let refs = self.java()?;
                let left = crate::natives::take_quiet_left(&refs);
                // Monitors could pass in Java only if the stretch covered them.
                let held = if ex.quiet_covers & QUIET_COVERS_MONITORS != 0 {
                    crate::natives::take_quiet_held(&refs)
                } else {
                    Vec::new()
                };
                let used = granted.saturating_sub(left);
                // Balanced enter/exit pairs were counted in `used` and never reach the model;
                // monitors still held are performed as enters (each its own step).
                let passed = used.saturating_sub(held.len() as u64);
                let ids: Vec<ObjId> = held.iter().map(|&obj| self.obj_id(ex, obj)).collect();
                let env = crate::ffi::current_env();
                for obj in held {
                    crate::ffi::delete_local(env, obj);
                }
                if let Some(decision) = st.model.quiet_performed(me, passed).transpose() {
                    return Some(decision);
                }
                for obj in ids {
                    match st.model.perform_now(me, Op::MonitorEnter { obj, site: 0 }) {
                        Ok(Decision::Run { thread, .. }) if thread == me => {}
                        other => return Some(other),
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Waits on `me`'s condition variable until its turn comes (or the execution ends).
    fn await_turn(&self, mut st: MutexGuard<'_, State>, epoch: u32, me: ThreadId) -> Turn {
        // The caller may have let go of the lock: the execution may be over.
        if !live(&st, epoch) {
            return Turn::Abort;
        }
        let cv = {
            let rec = &mut st.exec.as_mut().unwrap().threads[me.index()];
            rec.place = Place::Parked;
            rec.cv.clone()
        };
        loop {
            if !live(&st, epoch) {
                return Turn::Abort;
            }
            let rec = &mut st.exec.as_mut().unwrap().threads[me.index()];
            if let Some(outcome) = rec.resume.take() {
                rec.place = Place::Running;
                self.open_quiet(&mut st, me);
                return Turn::Go(outcome);
            }
            st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// When every non-daemon thread has finished, the JVM would exit: the execution is over.
    fn only_daemons_left(&self, ex: &Exec) -> Option<String> {
        let running: Vec<&ThreadRec> = ex.threads.iter().filter(|r| !r.finished).collect();
        if running.is_empty() || running.iter().any(|r| !r.daemon) {
            return None;
        }
        let names: Vec<&str> = running.iter().map(|r| r.name.as_str()).collect();
        Some(format!(
            "every non-daemon thread finished; {} daemon thread(s) still running were stopped: {}",
            names.len(),
            names.join(", ")
        ))
    }

    fn end_of(&self, st: &State, decision: Decision) -> End {
        let end = |kind, bug, message: String| End {
            kind,
            bug,
            message,
            bound: None,
            exit_status: None,
            trace: None,
        };
        match decision {
            Decision::Run { .. } => unreachable!("not a terminal decision"),
            Decision::Finished => {
                let expected = self.options.expect_exit;
                let mut e = if expected == 0 {
                    end("finished", false, "every thread finished".into())
                } else {
                    end(
                        "exit",
                        true,
                        format!("the program ended normally (status 0), expected exit status {expected}"),
                    )
                };
                e.exit_status = Some(0);
                e
            }
            Decision::Exit { status } => {
                let expected = self.options.expect_exit;
                // Plain main: the program's own status is its business unless expect-exit says.
                let checked = !self.is_plain() || self.options.expect_exit_given;
                let mut e = if status == expected || !checked {
                    end("exit", false, format!("System.exit({status})"))
                } else {
                    end(
                        "exit",
                        true,
                        format!("System.exit({status}), expected exit status {expected}"),
                    )
                };
                e.exit_status = Some(status);
                e
            }
            Decision::Deadlock { blocked } => {
                let ex = st.exec.as_ref().unwrap();
                let name = |t: ThreadId| ex.threads.get(t.index()).map_or("", |r| r.name.as_str());
                let ids: Vec<u64> = blocked
                    .iter()
                    .filter_map(|(_, op)| op.obj().map(|o| o.0))
                    .collect();
                let classes = self.classes(ex.epoch, &ids);
                let object = |o: scheduler::ObjId| match classes.get(&o.0) {
                    Some(class) => format!("{class}#{}", o.0),
                    None => format!("object #{}", o.0),
                };
                let parts: Vec<String> = blocked
                    .iter()
                    .map(|(t, op)| {
                        let holder = match op {
                            Op::MonitorEnter { obj, .. } => st
                                .model
                                .monitor(*obj)
                                .map(|(h, _)| format!(" held by {h} ({})", name(h))),
                            _ => None,
                        };
                        format!(
                            "{t} ({}) blocked at {}{}",
                            name(*t),
                            crate::explain::op_named(op, &object),
                            holder.unwrap_or_default()
                        )
                    })
                    .collect();
                end("deadlock", true, format!("deadlock: {}", parts.join("; ")))
            }
            Decision::StepBound => {
                // Long is not a livelock: without evidence of no progress this says nothing
                // about the program (inconclusive, never a bug).
                let mut e = end(
                    "too-long",
                    true,
                    format!(
                        "too long: the execution reached the step bound ({} steps) while its \
                         threads were still making progress (raise it with --max-steps)",
                        self.options.max_steps
                    ),
                );
                e.bound = Some("steps");
                e
            }
            Decision::Livelock { spinning } => {
                let ex = st.exec.as_ref().unwrap();
                let parts: Vec<String> = spinning
                    .iter()
                    .map(|(t, sites)| {
                        let name = ex.threads.get(t.index()).map_or("", |r| r.name.as_str());
                        let mut places: Vec<String> = Vec::new();
                        for s in sites {
                            let p = match st.site_places.get(s) {
                                Some(p) => p.to_string(),
                                None => format!("site {s:#x}"),
                            };
                            if !places.contains(&p) {
                                places.push(p);
                            }
                        }
                        format!("{t} ({name}) spins at {}", places.join(", "))
                    })
                    .collect();
                end(
                    "livelock",
                    true,
                    format!(
                        "livelock: for {} steps every enabled thread only re-read what nobody \
                         writes, yielded or slept: {}",
                        self.options.livelock_window,
                        parts.join("; ")
                    ),
                )
            }
            Decision::Stopped(Stop::Diverged(d)) => {
                let ex = st.exec.as_ref().unwrap();
                let thread = |t: ThreadId| {
                    ex.threads
                        .get(t.index())
                        .map_or_else(String::new, |r| r.name.clone())
                };
                let place = |s: i64| st.site_places.get(&s).map(|p| p.to_string());
                let names = crate::explain::Names {
                    thread: &thread,
                    place: &place,
                };
                let status_of = |t: ThreadId| st.model.status(t);
                let steps = st.model.steps();
                let last = st.model.events().last();
                let text = crate::explain::divergence(&d, steps, last, &status_of, &names);
                end("diverged", false, text)
            }
            Decision::Stopped(Stop::Pruned) => end(
                "pruned",
                false,
                "the strategy pruned the rest of this execution".into(),
            ),
        }
    }

    fn internal_error(&self, epoch: u32, message: String) {
        self.end_execution(
            epoch,
            End {
                kind: "internal",
                bug: false,
                message,
                bound: None,
                exit_status: None,
                trace: None,
            },
        );
    }

    /// Records how execution `epoch` ended (the first ending wins), captures every live
    /// application thread's stack for a bug, and wakes the harness.
    pub fn end_execution(&self, epoch: u32, end: End) {
        let mut st = self.lock();
        let Some(ex) = st.exec.as_mut().filter(|e| e.epoch == epoch) else {
            return;
        };
        if ex.end.is_some() {
            return;
        }
        let bug = end.bug;
        ex.end = Some(end);
        if !bug {
            ex.stacks_ready = true;
            self.harness_cv.notify_all();
            return;
        }
        // A thread the model blocks (monitor, wait, join, park) waits in the agent: the
        // model's word for it says what for; the JVM would say "running native code".
        let guard = st;
        let st = &*guard;
        let Some(ex) = st.exec.as_ref() else { return };
        let place = |s: i64| st.site_places.get(&s).map(|p| p.to_string());
        let no_name = |_: ThreadId| String::new();
        let names = crate::explain::Names {
            thread: &no_name,
            place: &place,
        };
        let threads: Vec<(u32, jobject, String, Option<String>)> = ex
            .threads
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                !r.thread.is_null()
                    && matches!(r.place, Place::Running | Place::Parked | Place::RealWait)
            })
            .map(|(i, r)| {
                let modelled = st
                    .model
                    .status(ThreadId(i as u32))
                    .filter(|s| !matches!(s, ThreadStatus::Running))
                    .map(|s| crate::explain::state(s, &names));
                (i as u32, r.thread, r.name.clone(), modelled)
            })
            .collect();
        drop(guard);
        // The other threads stay where they are until the harness wakes them, so their stacks
        // are the ones of the failure.
        let stacks: Vec<ThreadStack> = threads
            .into_iter()
            .map(|(id, thread, name, modelled)| {
                let state = self.jvmti.thread_state(thread).unwrap_or(0);
                ThreadStack {
                    thread: id,
                    name,
                    state: modelled.unwrap_or_else(|| jvmti::describe_state(state).to_string()),
                    frames: trim_frames(self.jvmti.stack(thread, 96).unwrap_or_default()),
                }
            })
            .collect();
        let mut st = self.lock();
        if let Some(ex) = st.exec.as_mut().filter(|e| e.epoch == epoch) {
            ex.stacks = stacks;
            ex.stacks_ready = true;
        }
        self.harness_cv.notify_all();
    }

    // ---- thread lifecycle ------------------------------------------------------------------

    /// JVMTI ThreadStart, on the new thread.
    pub fn thread_started(&self, env: *mut JNIEnv, thread: jobject) {
        let mut st = self.lock();
        let epoch = st.epoch;
        // Already registered (plain main registers the main thread at VMInit; the JVM then
        // also posts its ThreadStart).
        if current().is_some_and(|(e, _)| e == epoch) {
            return;
        }
        let Some(ex) = st.exec.as_mut() else {
            return;
        };
        // Only threads this execution tagged (its root, the children it started): any other
        // (JVM-internal, attached) must not take an object number, which would shift the
        // numbers of the program's objects depending on timing.
        let tag = self.jvmti.get_tag(thread).unwrap_or(0);
        if tag == 0 || (tag >> 32) as u32 != ex.epoch {
            return;
        }
        let Some(me) = self.thread_of(ex, thread) else {
            return;
        };
        let info = self.jvmti.thread_info(thread).ok();
        let rec = &mut ex.threads[me.index()];
        rec.thread = crate::ffi::new_global(env, thread);
        if let Some(info) = info {
            rec.name = info.name;
            rec.daemon = info.daemon;
        }
        rec.place = Place::Running;
        // Set even when the execution is already over, so that every hook of this thread
        // throws ExecutionAborted.
        ME.with(|m| m.set(Some((epoch, me))));
        crate::pin_application_thread(&self.options);
        let turn = if !live(&st, epoch) {
            drop(st);
            Turn::Abort
        } else if me == ThreadId::MAIN {
            let decision = st.model.announce(me, Op::Begin);
            self.settle(st, epoch, me, decision, Mode::Condvar)
        } else {
            self.await_turn(st, epoch, me)
        };
        if turn == Turn::Abort {
            self.stop_current(thread);
        }
    }

    /// Throws `ExecutionAborted` into the current thread as soon as it runs Java code again.
    fn stop_current(&self, thread: jobject) {
        if let Some(refs) = self.java() {
            let _ = self.jvmti.stop(thread, refs.abort);
        }
    }

    /// JVMTI ThreadEnd, on the ending thread.
    pub fn thread_ended(&self, env: *mut JNIEnv) {
        let Some((epoch, me)) = current() else {
            return;
        };
        ME.with(|m| m.set(None));
        Self::forget_pending(env);
        if me == ThreadId::MAIN && self.is_plain() && !crate::plain::main_class_initialized(self) {
            self.internal_error(
                epoch,
                "the main class could not be loaded or initialized (the JVM said why above): \
                 nothing of the program ran"
                    .into(),
            );
        }
        self.perform_end(epoch, me);
        let mut st = self.lock();
        if let Some(ex) = st.exec.as_mut().filter(|e| e.epoch == epoch) {
            ex.live -= 1;
            let rec = &mut ex.threads[me.index()];
            rec.place = Place::Gone;
            let global = std::mem::replace(&mut rec.thread, std::ptr::null_mut());
            crate::ffi::delete_global(env, global);
        }
        self.harness_cv.notify_all();
        drop(st);
        if me == ThreadId::MAIN && self.is_plain() {
            // Plain main: the JVM would shut down once the other threads end; the monitor
            // writes the result and ends the process first.
            crate::plain::hold_main();
        }
    }

    pub fn is_plain(&self) -> bool {
        self.plain.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The JVM is exiting without rankcheck having seen an exit (uncontrolled code called
    /// `System.exit`): the execution ends here, as an exit.
    fn end_unseen_exit(&self) {
        let epoch = {
            let st = self.lock();
            match st.exec.as_ref() {
                Some(ex) if ex.end.is_none() => ex.epoch,
                _ => return,
            }
        };
        self.end_execution(
            epoch,
            End {
                kind: "exit",
                bug: false,
                message: "the JVM exited where rankcheck does not see it (System.exit from                           uninstrumented code, or a signal)"
                    .into(),
                bound: None,
                exit_status: None,
                trace: None,
            },
        );
    }

    /// The thread's last scheduling point: `End`, then the turn goes to the next thread (or,
    /// when only daemon threads are left, the execution ends as the JVM would).
    fn perform_end(&self, epoch: u32, me: ThreadId) {
        let mut st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        if let Some(decision) = self.close_quiet(&mut st, me) {
            self.settle(st, epoch, me, decision, Mode::Leave);
            return;
        }
        let decision = st.model.announce(me, Op::End);
        let Turn::Go(_) = self.settle(st, epoch, me, decision, Mode::Condvar) else {
            return;
        };
        st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        let ex = st.exec.as_mut().unwrap();
        ex.threads[me.index()].finished = true;
        if let Some(note) = self.only_daemons_left(ex) {
            drop(st);
            self.end_execution(
                epoch,
                End {
                    kind: "finished",
                    bug: false,
                    message: note,
                    bound: None,
                    exit_status: Some(0),
                    trace: None,
                },
            );
            return;
        }
        let decision = st.model.thread_finished(me);
        self.settle(st, epoch, me, decision, Mode::Leave);
    }

    /// `Thread.start` was announced and performed: `child` is the new thread's id.
    pub fn register_child(&self, ex: &mut ExecView<'_>, thread: jobject, child: ThreadId) {
        let id = self.obj_id(ex.ex, thread);
        ex.ex.thread_of.insert(id.0, child);
        let threads = &mut ex.ex.threads;
        while threads.len() <= child.index() {
            threads.push(ThreadRec::new(Place::Unborn));
        }
    }

    /// After the real `start()` of `thread` returned (or threw).
    pub fn child_started(&self, thread: jobject) {
        let Some((epoch, _)) = current() else {
            return;
        };
        let state = self.jvmti.thread_state(thread).unwrap_or(0);
        let alive = state
            & (crate::jvmti_sys::JVMTI_THREAD_STATE_ALIVE
                | crate::jvmti_sys::JVMTI_THREAD_STATE_TERMINATED)
            != 0;
        let mut st = self.lock();
        let Some(ex) = st.exec.as_mut().filter(|e| e.epoch == epoch) else {
            return;
        };
        let Some(child) = self.thread_of(ex, thread) else {
            return;
        };
        if alive {
            ex.live += 1;
            // Known now, before the child runs: the daemon rule needs it even if the child
            // never reaches its ThreadStart before the others finish.
            if let Ok(info) = self.jvmti.thread_info(thread) {
                let rec = &mut ex.threads[child.index()];
                rec.daemon = info.daemon;
                rec.name = info.name;
            }
        } else {
            ex.threads[child.index()].phantom = true;
            ex.notes.push(format!(
                "{child}: start() returned without starting the thread (treated as a thread that ends at once)"
            ));
        }
    }

    /// The thread `thread` died of an uncaught throwable.
    pub fn uncaught(&self, thread: jobject, message: String, trace: String) {
        let mut st = self.lock();
        // The failing thread's accesses since its last scheduling point are part of the
        // schedule a replay must follow.
        if let Some((_, me)) = current() {
            let _ = self.close_quiet(&mut st, me);
        }
        let Some(ex) = st.exec.as_ref() else {
            return;
        };
        let epoch = ex.epoch;
        let name = self
            .jvmti
            .thread_info(thread)
            .map(|i| i.name)
            .unwrap_or_default();
        let id = current().map(|(_, t)| t.to_string()).unwrap_or_default();
        drop(st);
        self.end_execution(
            epoch,
            End {
                kind: "uncaught",
                bug: true,
                message: format!("uncaught in thread {id} ({name}): {message}"),
                bound: None,
                exit_status: None,
                trace: Some(trace),
            },
        );
    }

    // ---- pinned nondeterminism -------------------------------------------------------------

    /// A deterministic identity hash: a function of the execution's seed and the object's id.
    pub fn identity_hash(&self, obj: jobject) -> i32 {
        let mut st = self.lock();
        let seed = self.options.seed;
        match st.exec.as_mut() {
            Some(ex) => {
                let id = self.obj_id(ex, obj);
                (mix(mix(seed, ex.index), id.0) as u32 & 0x7fff_ffff) as i32
            }
            None => (mix(seed, obj as u64) as u32 & 0x7fff_ffff) as i32,
        }
    }

    /// The virtual clock (it advances 1 µs per reading, and by every sleep and timeout).
    pub fn clock_ns(&self) -> u64 {
        let mut st = self.lock();
        match st.exec.as_mut() {
            Some(ex) => {
                ex.clock_ns += 1_000;
                ex.clock_ns
            }
            None => BASE_CLOCK_NS + self.session_start.elapsed().as_nanos() as u64,
        }
    }

    pub fn advance_clock(&self, nanos: u64) {
        if let Some(ex) = self.lock().exec.as_mut() {
            ex.clock_ns = ex.clock_ns.saturating_add(nanos);
        }
    }

    /// The next number of the execution's pinned random sequence.
    pub fn random(&self) -> u64 {
        let mut st = self.lock();
        match st.exec.as_mut() {
            Some(ex) => splitmix(&mut ex.rng),
            None => {
                let mut s = self.session_start.elapsed().as_nanos() as u64;
                splitmix(&mut s)
            }
        }
    }

    // ---- the harness's side ----------------------------------------------------------------

    /// The index of the next execution, or `None` when the run is over.
    pub fn next_execution(&self) -> Option<u64> {
        let mut st = self.lock();
        // A search resumed from a state file (`state=`) that has nothing left.
        if st.executions == 0 && !st.finished_in_model && st.model.strategy().exhausted() {
            st.done = true;
        }
        if st.done {
            return None;
        }
        if let Some(limit) = self.options.time_limit_ms {
            if st.executions > 0 && self.session_start.elapsed() >= Duration::from_millis(limit) {
                st.done = true;
                return None;
            }
        }
        if st.finished_in_model {
            if let Err(e) = st.model.restart() {
                eprintln!("rankcheck agent: cannot start another execution: {e}");
                st.done = true;
                return None;
            }
            st.finished_in_model = false;
        }
        Some(st.model.index())
    }

    /// Puts the JDK's process-wide counters (thread names and ids, pool numbers, random seeds)
    /// and its common fork/join pool back to what a fresh JVM's first execution sees, before
    /// execution `index`.
    pub fn pin_jdk_counters(&self, env: *mut jni::sys::JNIEnv, index: u64) {
        let mut pinned = self.pinned_jdk.lock().unwrap_or_else(|e| e.into_inner());
        crate::pinned_jdk::reset(env, &mut pinned, self.options.seed, index);
        if let Some(refs) = self.java() {
            crate::common_pool::renew(env, self.jvmti, refs.abort);
        }
    }

    /// Makes `root` thread 0 of a new execution.
    pub fn start_execution(&self, root: jobject) {
        let mut st = self.lock();
        st.epoch += 1;
        let index = st.model.index();
        let mut ex = Exec {
            epoch: st.epoch,
            index,
            threads: vec![ThreadRec::new(Place::Unborn)],
            thread_of: IdMap::default(),
            next_obj: 0,
            names: Default::default(),
            live: 1,
            end: None,
            stacks_ready: false,
            stacks: Vec::new(),
            progress: 0,
            started: Instant::now(),
            clock_ns: BASE_CLOCK_NS,
            rng: mix(self.options.seed, index),
            notes: Vec::new(),
            quiet: None,
            quiet_thread: None,
            quiet_covers: 0,
            confinement: Default::default(),
            next_confinement_id: 0,
            locs: Default::default(),
        };
        if let Some(refs) = self.java() {
            crate::natives::clear_quiet(&refs);
        }
        let id = self.obj_id(&mut ex, root);
        ex.thread_of.insert(id.0, ThreadId::MAIN);
        st.exec = Some(ex);
    }

    /// Blocks until the execution ended and its threads are gone (or given up on); runs the
    /// watchdog meanwhile.
    pub fn await_execution(&self) {
        let mut st = self.lock();
        let epoch = st.epoch;
        let mut last_progress = (u64::MAX, Instant::now(), 0);
        loop {
            let ex = st.exec.as_mut().unwrap();
            if ex.end.is_some() && ex.stacks_ready {
                break;
            }
            if ex.end.is_none() {
                if let Some(end) = self.watchdog(ex, &mut last_progress) {
                    drop(st);
                    self.end_execution(epoch, end);
                    st = self.lock();
                    continue;
                }
            }
            st = self
                .harness_cv
                .wait_timeout(st, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(st);
        self.stop_threads(epoch);
    }

    /// The watchdog: the wall-clock bound, and the running thread blocked where rankcheck
    /// cannot see.
    fn watchdog(&self, ex: &mut Exec, last: &mut (u64, Instant, u64)) -> Option<End> {
        let timeout = Duration::from_millis(self.options.timeout_ms);
        if ex.started.elapsed() > timeout {
            let running = self.running_description(ex);
            return Some(End {
                kind: "timeout",
                bug: true,
                message: format!(
                    "the execution ran longer than {} ms of wall-clock time{running}",
                    self.options.timeout_ms
                ),
                bound: Some("wall-clock"),
                exit_status: None,
                trace: None,
            });
        }
        if ex.progress != last.0 {
            let cpu = self.running_cpu(ex);
            *last = (ex.progress, Instant::now(), cpu);
            return None;
        }
        let still = last.1.elapsed();
        if still < Duration::from_millis(self.options.block_ms) {
            return None;
        }
        let (id, rec) = ex.threads.iter().enumerate().find(|(_, r)| {
            r.place == Place::Running || (r.place == Place::Unborn && r.resume.is_some())
        })?;
        let message = if rec.place == Place::Unborn {
            format!(
                "t{id} was scheduled but never started running (for {} ms)",
                self.options.block_ms
            )
        } else {
            let state = self.jvmti.thread_state(rec.thread).unwrap_or(0);
            let cpu = self.jvmti.cpu_time(rec.thread).unwrap_or(0);
            // Not blocked by its state, but not computing either: waiting somewhere the state
            // does not show (the JVM's class-initialization lock is one).
            let idle = cpu.saturating_sub(last.2) < still.as_nanos() as u64 / 20;
            // Where it waits: its innermost frame that is not rankcheck's.
            let place = self
                .jvmti
                .stack(rec.thread, 8)
                .unwrap_or_default()
                .into_iter()
                .find(|f| !f.starts_with("at rankcheck."))
                .map(|f| format!(" {f}"))
                .unwrap_or_default();
            let what = if jvmti::is_blocked(state) {
                format!(
                    "t{id} ({}) is {}{place} where rankcheck cannot see it, and nothing else may \
                     run; it has not moved for {} ms",
                    rec.name,
                    jvmti::describe_state(state),
                    still.as_millis()
                )
            } else if idle {
                format!(
                    "t{id} ({}) has not reached a scheduling point for {} ms and is not using \
                     the CPU{place}: it waits where rankcheck cannot see it",
                    rec.name,
                    still.as_millis()
                )
            } else {
                return None;
            };
            // A limit of rankcheck, not a finding: the model does not know what the thread
            // waits for, so it can say nothing about the program here.
            format!(
                "rankcheck could not control this execution ({what}). This is not a bug found \
                 in the program: the thread waits on something rankcheck does not model (I/O, a \
                 lock taken by a thread rankcheck does not control, a class being initialized \
                 by another thread, a JDK-internal lock); java.util.concurrent is modelled \
                 unless the agent runs with juc=off"
            )
        };
        Some(End {
            kind: "blocked",
            bug: true,
            message,
            bound: Some("watchdog"),
            exit_status: None,
            trace: None,
        })
    }

    /// CPU time of the running thread (0 when there is none yet).
    fn running_cpu(&self, ex: &Exec) -> u64 {
        ex.threads
            .iter()
            .find(|r| r.place == Place::Running && !r.thread.is_null())
            .and_then(|r| self.jvmti.cpu_time(r.thread).ok())
            .unwrap_or(0)
    }

    fn running_description(&self, ex: &Exec) -> String {
        ex.threads
            .iter()
            .enumerate()
            .find(|(_, r)| r.place == Place::Running)
            .map(|(i, r)| format!(" (t{i} {} was running)", r.name))
            .unwrap_or_default()
    }

    /// Wakes every application thread of the ended execution so that it dies, stops those that
    /// do not, and gives up on those that cannot be stopped.
    fn stop_threads(&self, epoch: u32) {
        let abort = self.java().map(|j| j.abort);
        let mut st = self.lock();
        {
            let ex = st.exec.as_mut().unwrap();
            for rec in &ex.threads {
                match rec.place {
                    Place::Parked => rec.cv.notify_one(),
                    Place::RealWait => {
                        let _ = self.jvmti.interrupt(rec.thread);
                    }
                    _ => {}
                }
            }
        }
        let phases = [
            (Duration::from_millis(300), true),
            (Duration::from_millis(3_000), false),
        ];
        for (patience, then_stop) in phases {
            let deadline = Instant::now() + patience;
            while st.exec.as_ref().unwrap().live > 0 && Instant::now() < deadline {
                st = self
                    .harness_cv
                    .wait_timeout(st, Duration::from_millis(5))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            let ex = st.exec.as_mut().unwrap();
            if ex.live <= 0 || !then_stop {
                break;
            }
            // Still alive: blocked where rankcheck cannot see, spinning without hooks, or not yet
            // at its ThreadStart. An asynchronous ExecutionAborted wakes and unwinds it.
            if let Some(abort) = abort {
                for rec in &ex.threads {
                    if !rec.thread.is_null() && rec.place != Place::Gone {
                        let _ = self.jvmti.stop(rec.thread, abort);
                    }
                }
            }
        }
        let ex = st.exec.as_mut().unwrap();
        if ex.live > 0 {
            let stuck: Vec<String> = ex
                .threads
                .iter()
                .enumerate()
                .filter(|(_, r)| !matches!(r.place, Place::Gone) && !r.phantom && !r.finished)
                .map(|(i, r)| format!("t{i} {}", r.name))
                .collect();
            ex.notes.push(format!(
                "{} thread(s) could not be stopped and were left behind: {}",
                ex.live,
                stuck.join(", ")
            ));
        }
        debug_assert_eq!(ex.epoch, epoch);
    }

    /// Completes the execution's result with the harness's output and oracle verdict, writes
    /// it, and decides whether the run goes on.
    pub fn finish_execution(
        &self,
        stdout: String,
        stderr: String,
        oracle: Option<(String, String)>,
    ) -> Option<ExecutionResult> {
        let mut st = self.lock();
        let ex = st.exec.take()?;
        let mut end = ex.end.clone().unwrap_or(End {
            kind: "internal",
            bug: false,
            message: "the execution has no ending".into(),
            bound: None,
            exit_status: None,
            trace: None,
        });
        let mut kind = end.kind.to_string();
        if !end.bug {
            if let Some((k, message)) = oracle {
                kind = k;
                end.bug = true;
                end.message = message;
            }
        }
        // The watchdog and the wall-clock bound: rankcheck could not control the execution,
        // so it says nothing about the program (neither a bug nor a pass).
        let inconclusive =
            end.bug && matches!(end.bound, Some("watchdog" | "wall-clock" | "steps"));
        let bug = end.bug && !inconclusive;
        let steps_trace = self
            .options
            .trace
            .then(|| self.steps_trace(&st, &ex, end.kind == "deadlock"));
        let more = st.model.finish(bug).unwrap_or(false) && !st.model.strategy().exhausted();
        let exhausted = st.model.strategy().exhausted();
        if let Some(path) = &self.options.state {
            save_state(path, st.model.strategy().save());
        }
        let coverage = st.model.strategy().coverage();
        let hb = st.model.strategy().last_graph();
        st.finished_in_model = true;
        st.executions += 1;
        if bug {
            st.bugs += 1;
        }
        if inconclusive {
            st.inconclusive += 1;
        }
        let schedule = (end.bug
            || self.options.record_all
            || self.options.record_at == Some(ex.index)
            || self.options.replay.is_some()
            || self.is_plain())
        .then(|| st.model.schedule().to_text());
        let result = ExecutionResult {
            index: ex.index,
            seed: self.options.seed,
            outcome: if bug {
                "bug"
            } else if inconclusive {
                "inconclusive"
            } else {
                "pass"
            },
            kind,
            message: end.message,
            bound: end.bound,
            exit_status: end.exit_status,
            steps: st.model.steps(),
            threads: st.model.thread_count(),
            millis: ex.started.elapsed().as_millis() as u64,
            stacks: ex.stacks,
            trace: end.trace,
            stdout,
            stderr,
            schedule,
            notes: ex.notes,
            coverage,
            exhausted,
            hb,
            steps_trace,
        };
        // Plain main without `out=` says it in one paragraph (plain.rs) instead.
        if !(self.is_plain() && self.options.out.is_none()) {
            st.results.write(&result, self.options.verbose);
        }
        let executions_left = st.executions < self.options.executions;
        let hopeless = st.inconclusive >= self.options.max_inconclusive;
        if !more || !executions_left || hopeless || (bug && !self.options.keep_going) {
            st.done = true;
        }
        Some(result)
    }

    /// Every step of the execution that ends now, for the result's `steps_trace` (at most the
    /// last [`crate::report::TRACE_STEPS`]), with the threads blocked for ever when it
    /// `deadlocked`.
    fn steps_trace(&self, st: &State, ex: &Exec, deadlocked: bool) -> crate::report::StepsTrace {
        use crate::report::{TracedStep, TRACE_STEPS};
        let events = st.model.events();
        let marks = st.model.step_marks().unwrap_or(&[]);
        let skip = events.len().saturating_sub(TRACE_STEPS);
        let object_of = |kind: OpKind, target: u64| -> (Option<u64>, Option<i32>) {
            match kind {
                OpKind::Read | OpKind::Write => match ex.locs.get(&target) {
                    Some(&(0, _)) | None => (None, None),
                    Some(&(obj, index)) => (Some(obj), (index >= 0).then_some(index)),
                },
                OpKind::MonitorEnter
                | OpKind::MonitorExit
                | OpKind::Wait
                | OpKind::WaitReturn
                | OpKind::Notify
                | OpKind::NotifyAll => (Some(target), None),
                _ => (None, None),
            }
        };
        let mut steps: Vec<TracedStep> = events
            .iter()
            .enumerate()
            .skip(skip)
            .map(|(i, e)| {
                let (obj, index) = object_of(e.kind, e.target);
                let mark = marks.get(i);
                TracedStep {
                    step: mark.map_or(i as u64 + 1, |m| m.step),
                    thread: e.thread.0,
                    kind: e.kind,
                    target: e.target,
                    obj,
                    class: None,
                    index,
                    site: e.site,
                    preempted: mark.is_some_and(|m| m.preempted),
                }
            })
            .collect();
        let mut blocked = Vec::new();
        if deadlocked {
            for t in 0..st.model.thread_count() {
                let t = ThreadId(t);
                let stuck = matches!(
                    st.model.status(t),
                    Some(
                        ThreadStatus::BlockedOnMonitor { .. }
                            | ThreadStatus::Waiting { .. }
                            | ThreadStatus::Joining { .. }
                            | ThreadStatus::Parked
                    )
                );
                let Some(op) = st.model.pending(t).filter(|_| stuck) else {
                    continue;
                };
                let target = op
                    .obj()
                    .map(|o| o.0)
                    .or(op.target().map(|x| u64::from(x.0)))
                    .unwrap_or(u64::from(t.0));
                blocked.push(TracedStep {
                    step: st.model.steps() + 1,
                    thread: t.0,
                    kind: op.kind(),
                    target,
                    obj: op.obj().map(|o| o.0),
                    class: None,
                    index: None,
                    site: op.site().unwrap_or(0),
                    preempted: false,
                });
            }
        }
        let mut ids: Vec<u64> = steps.iter().chain(&blocked).filter_map(|s| s.obj).collect();
        ids.sort_unstable();
        ids.dedup();
        let classes = self.classes(ex.epoch, &ids);
        for s in steps.iter_mut().chain(blocked.iter_mut()) {
            s.class = s.obj.and_then(|o| classes.get(&o).cloned());
        }
        crate::report::StepsTrace {
            threads: ex.threads.iter().map(|r| r.name.clone()).collect(),
            omitted: skip as u64,
            steps,
            blocked,
        }
    }

    pub fn exit_status(&self) -> i32 {
        let mut st = self.lock();
        st.results.flush();
        i32::from(st.bugs > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_keeps_the_program_frames_only() {
        let frames: Vec<String> = [
            "at rankcheck.rt.RC.nJoin(Native Method)",
            "at rankcheck.rt.RC.threadJoin(RC.java:91)",
            "at Deadlock.main(Deadlock.java:23)",
            "at jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            "at java.lang.reflect.Method.invoke(Method.java:569)",
            "at rankcheck.harness.Main.runMain(Main.java:149)",
            "at rankcheck.harness.Main$$Lambda$2.0x00007fc4d0001b58.run(Unknown Source)",
            "at java.lang.Thread.run(Thread.java:840)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            trim_frames(frames),
            vec!["at Deadlock.main(Deadlock.java:23)".to_string()]
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Wait on the thread's condition variable for its turn.
    Condvar,
    /// Return `RealWait`: the caller waits in the real `Object.wait()`.
    RealWait,
    /// The thread finished: hand the turn on and leave.
    Leave,
}

/// Writes the strategy's search state (a temporary file and a rename: a JVM killed mid-write
/// leaves the previous state).
fn save_state(path: &std::path::Path, state: Option<String>) {
    let Some(text) = state else { return };
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, path).is_err() {
        eprintln!(
            "rankcheck agent: warning: cannot save the search state to {}",
            path.display()
        );
    }
}

fn live(st: &State, epoch: u32) -> bool {
    st.epoch == epoch && st.exec.as_ref().is_some_and(|e| e.end.is_none())
}

/// The current execution, as the operation builders of [`Control::point`] see it.
pub struct ExecView<'a> {
    ex: &'a mut Exec,
    sites: &'a IdMap<i64, SiteInfo>,
    pub me: ThreadId,
}

impl ExecView<'_> {
    pub fn obj(&mut self, control: &Control, obj: jobject) -> ObjId {
        control.obj_id(self.ex, obj)
    }

    /// Whether only this thread has touched `obj` at a confinement-checked site so far
    /// (confinement.rs); statics (null) never are.
    pub fn confined(&mut self, control: &Control, obj: jobject) -> bool {
        if obj.is_null() {
            return false;
        }
        // Not `obj_id`: the objects met here include the JDK's own (its first-time work in a
        // JVM), and giving them ids from the execution's counter would shift the ids of the
        // program's objects between the search and a replay.
        let ex = &mut *self.ex;
        let id = if let Some(id) = control.tagged_id(ex.epoch, obj) {
            id
        } else {
            ex.next_confinement_id += 1;
            let id = CONFINEMENT_ID | ex.next_confinement_id;
            let _ = control
                .jvmti
                .set_tag(obj, ((ex.epoch as i64) << 32) | id as i64);
            id
        };
        !ex.confinement.touch(id, self.me)
    }

    /// The application thread of `thread` in this execution, if it is one.
    pub fn thread(&mut self, control: &Control, thread: jobject) -> Option<ThreadId> {
        control.thread_of(self.ex, thread)
    }

    /// The location and variable of a field access (`obj` null for a static) or of an array
    /// element (`index >= 0`). The variable is [`crate::naming::UNTRACKED`] when the class path
    /// was instrumented for a variable set and the object or static is not in it: then the
    /// access is no scheduling point.
    pub fn access(
        &mut self,
        control: &Control,
        obj: jobject,
        index: i32,
        site: SiteId,
    ) -> (Loc, VarId) {
        let info = self.sites.get(&site).copied();
        if index >= 0 {
            let id = control.obj_id(self.ex, obj);
            let var = self.alloc_var(control, id, obj);
            let loc = Loc(mix(id.0, index as u64 | 1 << 40));
            self.traced(control, loc, id.0, index);
            return (loc, var);
        }
        let field = info.map_or(site as u64, |i| i.field);
        if obj.is_null() {
            let is_static = info.is_some_and(|i| i.is_static);
            let var = if is_static && !self.ex.names.static_tracked(field) {
                crate::naming::UNTRACKED
            } else {
                crate::naming::static_var(field)
            };
            let loc = Loc(mix(0, field));
            self.traced(control, loc, 0, -1);
            return (loc, var);
        }
        self.field_access(control, obj, field)
    }

    /// Remembers what `loc` is, with `trace=on`.
    fn traced(&mut self, control: &Control, loc: Loc, obj: u64, index: i32) {
        if control.options.trace {
            self.ex.locs.insert(loc.0, (obj, index));
        }
    }

    /// The location and variable of an access to the field with key `field`
    /// ([`crate::sites::field_key`]) of `obj` (null: a static field), for accesses whose field
    /// is known only at run time (VarHandles, field updaters, Unsafe). A static reached this way
    /// stays a point whatever the tracked set (its key may name the field through another
    /// class than the analysis does).
    pub fn field_access(&mut self, control: &Control, obj: jobject, field: u64) -> (Loc, VarId) {
        if obj.is_null() {
            let loc = Loc(mix(0, field));
            self.traced(control, loc, 0, -1);
            return (loc, crate::naming::static_var(field));
        }
        let id = control.obj_id(self.ex, obj);
        let var = self.alloc_var(control, id, obj);
        let loc = Loc(mix(id.0, field));
        self.traced(control, loc, id.0, -1);
        (loc, var)
    }

    fn alloc_var(&mut self, control: &Control, id: ObjId, obj: jobject) -> VarId {
        self.ex.names.var_of(control.jvmti, id.0, obj)
    }

    pub fn allocated(&mut self, control: &Control, obj: jobject, site: SiteId) {
        let id = control.obj_id(self.ex, obj);
        let by_name = control.options.l.is_some();
        self.ex
            .names
            .allocated(control.jvmti, id.0, site, self.me, by_name);
    }
}

impl Control {
    /// Records the allocation site of `obj` (not a scheduling point). Only variables need it:
    /// a strategy that bounds them, the loop-iteration names, or a tracked table (whether an
    /// access is a point); otherwise it returns at once (under full instrumentation every `new`
    /// calls it).
    pub fn allocated(&self, obj: jobject, site: SiteId) {
        // `nonpreemptive` never switches at an access, tracked or not.
        let needed = matches!(
            self.options.strategy.as_str(),
            "pctvb" | "rankchecker" | "rankchecker-exhaustive"
        ) || self.options.l.is_some()
            || (crate::naming::table().is_some() && self.options.strategy != "nonpreemptive");
        if !needed {
            return;
        }
        let Some((epoch, me)) = current() else {
            return;
        };
        let mut st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        let State { exec, sites, .. } = &mut *st;
        let mut view = ExecView {
            ex: exec.as_mut().unwrap(),
            sites,
            me,
        };
        view.allocated(self, obj, site);
    }
}

/// Drops the frames that are rankcheck's, not the program's: the hook and native on top, the
/// harness's reflective call of `main` (and `Thread.run`) at the bottom.
pub fn trim_frames(mut frames: Vec<String>) -> Vec<String> {
    let ours_on_top = frames
        .iter()
        .take_while(|f| {
            // The hook and native; for an uncaught throwable, the handler's frames.
            [
                "at rankcheck.rt.RC.",
                "at rankcheck.harness.",
                "at java.lang.ThreadGroup.uncaughtException(",
                "at java.lang.Thread.dispatchUncaughtException(",
            ]
            .iter()
            .any(|p| f.starts_with(p))
        })
        .count();
    frames.drain(..ours_on_top);
    let plumbing = |f: &String| {
        [
            "at jdk.internal.reflect.",
            "at java.lang.reflect.",
            "at rankcheck.harness.",
            "at java.lang.Thread.run(",
        ]
        .iter()
        .any(|p| f.starts_with(p))
            || (f.starts_with("at rankcheck.harness.Main$$Lambda"))
    };
    while frames.last().is_some_and(plumbing) {
        frames.pop();
    }
    frames
}

impl Control {
    /// Runs `f` on the current execution, for the current application thread.
    pub fn with_view(&self, f: impl FnOnce(&Control, &mut ExecView<'_>)) {
        let Some((epoch, me)) = current() else {
            return;
        };
        let mut st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        let State { exec, sites, .. } = &mut *st;
        let mut view = ExecView {
            ex: exec.as_mut().unwrap(),
            sites,
            me,
        };
        f(self, &mut view);
    }
}
