//! The execution lifecycle: the next execution, its start, the harness's wait for its end, how
//! it ends, its application threads stopped, and its result written.

use super::*;

/// How many times a stack is asked for before an empty one is taken: a few, 2 ms apart; for a
/// thread the model blocks (which has frames for sure), more, the waits doubling from 2 ms
/// (about a second in all, spent only on a stack the JVM gave empty: on a loaded machine a
/// deadlocked thread was reported with no frames after 10 ms of tries).
const STACK_ATTEMPTS: u32 = 5;
const BLOCKED_STACK_ATTEMPTS: u32 = 10;

impl Control {
    /// When every non-daemon thread has finished, the JVM would exit: the execution is over.
    pub(super) fn only_daemons_left(&self, ex: &Exec) -> Option<String> {
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

    pub(super) fn internal_error(&self, epoch: u32, message: String) {
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
        // The classes of the objects the model's threads wait for (`java.util.TaskQueue#3`).
        let waited_on: Vec<u64> = (0..ex.threads.len())
            .filter_map(|i| match st.model.status(ThreadId(i as u32))? {
                ThreadStatus::BlockedOnMonitor { obj, .. } | ThreadStatus::Waiting { obj, .. } => {
                    Some(obj.0)
                }
                _ => None,
            })
            .collect();
        let classes = self.classes(ex.epoch, &waited_on);
        let object = |o: scheduler::ObjId| match classes.get(&o.0) {
            Some(class) => format!("{class}#{}", o.0),
            None => crate::explain::object_number(o),
        };
        let names = crate::explain::Names {
            thread: &no_name,
            place: &place,
            object: &object,
        };
        let threads: Vec<(u32, jobject, String, Option<String>, bool)> = ex
            .threads
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                !r.thread.is_null()
                    && matches!(
                        r.place,
                        Place::Running | Place::Parked | Place::RealWait | Place::InitWait
                    )
            })
            .map(|(i, r)| {
                let t = ThreadId(i as u32);
                let status = match (st.model.status(t), ex.waiting_at_end) {
                    (Some(ThreadStatus::Running), Some((p, Op::MonitorEnter { obj, .. })))
                        if p == t =>
                    {
                        Some(ThreadStatus::BlockedOnMonitor {
                            obj,
                            owner: st.model.monitor(obj).map(|(o, _)| o),
                        })
                    }
                    (Some(ThreadStatus::Running), Some((p, _))) if p == t => {
                        Some(ThreadStatus::Parked)
                    }
                    (status, _) => status,
                };
                let blocked = status.as_ref().is_some_and(ThreadStatus::is_blocked);
                let modelled = status
                    .filter(|s| !matches!(s, ThreadStatus::Running))
                    .map(|s| crate::explain::state(s, &names));
                (i as u32, r.thread, r.name.clone(), modelled, blocked)
            })
            .collect();
        drop(guard);
        // The other threads stay where they are until the harness wakes them, so their stacks
        // are the ones of the failure.
        let stacks: Vec<ThreadStack> = threads
            .into_iter()
            .map(|(id, thread, name, modelled, blocked)| {
                let state = self.jvmti.thread_state(thread).unwrap_or(0);
                ThreadStack {
                    thread: id,
                    name,
                    state: modelled.unwrap_or_else(|| jvmti::describe_state(state).to_string()),
                    frames: trim_frames(self.settled_stack(thread, blocked)),
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

    /// `thread`'s stack (at most 96 frames), asked again a few times when the JVM gives none:
    /// a thread that was just handed the turn or just parked can be between two states when
    /// asked (seen on a loaded machine: a deadlocked thread reported with no frames).
    fn settled_stack(&self, thread: jobject, blocked: bool) -> Vec<String> {
        let attempts = if blocked {
            BLOCKED_STACK_ATTEMPTS
        } else {
            STACK_ATTEMPTS
        };
        for attempt in 0..attempts - 1 {
            match self.jvmti.stack(thread, 96) {
                Ok(frames) if !frames.is_empty() => return frames,
                _ => std::thread::sleep(Duration::from_millis(if blocked {
                    2 << attempt
                } else {
                    2
                })),
            }
        }
        self.jvmti.stack(thread, 96).unwrap_or_default()
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
            let restarted = match (st.next_index.take(), self.options.chunk_plan()) {
                (Some(next), Some(plan)) if plan.chunk_start(next) == next => {
                    // A chunk's first execution: a strategy that has learned nothing, as in a
                    // JVM of its own.
                    st.chunk_inconclusive = 0;
                    crate::strategy_choice::make_strategy(&self.options)
                        .map_err(|e| e.to_string())
                        .and_then(|fresh| {
                            st.model
                                .restart_at(next, Some(fresh))
                                .map_err(|e| e.to_string())
                        })
                }
                (Some(next), _) => st.model.restart_at(next, None).map_err(|e| e.to_string()),
                (None, _) => st.model.restart().map_err(|e| e.to_string()),
            };
            if let Err(e) = restarted {
                eprintln!("rankcheck agent: cannot start another execution: {e}");
                st.done = true;
                return None;
            }
            st.finished_in_model = false;
        }
        Some(st.model.index())
    }

    /// Makes `root` thread 0 of a new execution (its context class loader is the program's).
    pub fn start_execution(&self, env: *mut JNIEnv, root: jobject) {
        let loader = pinned::ProgramLoader::of_root(env, root);
        let mut st = self.lock();
        std::mem::replace(&mut st.program_loader, loader).release(env);
        if !st.known_taken {
            st.known_taken = true;
            for thread in self.jvmti.all_threads().unwrap_or_default() {
                super::threads::remember_thread(env, &mut st.known_threads, thread);
                crate::ffi::delete_local(env, thread);
            }
        }
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
            waiting_at_end: None,
            stacks_ready: false,
            stacks: Vec::new(),
            progress: 0,
            started: Instant::now(),
            clock_ns: BASE_CLOCK_NS,
            spin_clock_ns: 0,
            rng: mix(self.options.seed, index),
            notes: Vec::new(),
            task_failures: Vec::new(),
            uncontrolled: Vec::new(),
            quiet: None,
            quiet_thread: None,
            quiet_covers: 0,
            confinement: Default::default(),
            next_confinement_id: 0,
            young: Default::default(),
            real_monitors: Vec::new(),
            inits: Vec::new(),
            inits_begun: 0,
            adoptions: Vec::new(),
            handovers: Vec::new(),
            unseen_reads: Vec::new(),
            library_ops: Default::default(),
            callers: Default::default(),
            alone_callers: Default::default(),
            handed_callers: Default::default(),
            caller_walks: 0,
            locs: Default::default(),
        };
        if let Some(refs) = self.java() {
            quiet::clear_quiet(&refs);
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
        let mut last_progress = super::watchdog::Stillness::start();
        loop {
            let State { exec, model, .. } = &mut *st;
            let ex = exec.as_mut().unwrap();
            if ex.end.is_some() && ex.stacks_ready {
                break;
            }
            let mut tick = Duration::from_millis(20);
            if ex.end.is_none() {
                if let Some(end) = self.watchdog(ex, model, &mut last_progress) {
                    drop(st);
                    self.end_execution(epoch, end);
                    st = self.lock();
                    continue;
                }
                // A thread that waits for another's class initialization waits inside the
                // JVM: found here, soon, so that the others run (class_init.rs).
                if self.init_watch(ex) {
                    tick = Duration::from_millis(1);
                    if self.initializer_switched_out(ex) {
                        drop(st);
                        let caught = self.catch_init_wait(epoch);
                        st = self.lock();
                        if caught {
                            continue;
                        }
                    }
                }
            }
            st = self
                .harness_cv
                .wait_timeout(st, tick)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(st);
        self.stop_threads(epoch);
    }

    /// Wakes every application thread of the ended execution so that it dies, stops those that
    /// do not, and gives up on those that cannot be stopped.
    pub(super) fn stop_threads(&self, epoch: u32) {
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
            let mut checks = 0u32;
            while st.exec.as_ref().unwrap().live > 0 && Instant::now() < deadline {
                st = self
                    .harness_cv
                    .wait_timeout(st, Duration::from_millis(5))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                checks += 1;
                // Threads that block each other on real monitors (a deadlock inside
                // synchronized JDK methods) or on class initializations never take an
                // asynchronous exception: waiting the whole patience out for them only slows
                // the search down.
                if checks % 20 == 0 && self.all_stuck(&st) {
                    break;
                }
            }
            let ex = st.exec.as_mut().unwrap();
            if ex.live <= 0 || !then_stop || self.all_stuck(&st) {
                break;
            }
            let ex = st.exec.as_mut().unwrap();
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

    /// Whether every application thread still alive is blocked entering a real monitor, or
    /// waiting for a class initialization that has not ended: none can ever go on.
    fn all_stuck(&self, st: &State) -> bool {
        let ex = st.exec.as_ref().unwrap();
        let mut alive = ex
            .threads
            .iter()
            .filter(|r| !r.thread.is_null() && r.place != Place::Gone)
            .peekable();
        alive.peek().is_some()
            && alive.all(|r| {
                self.stuck_in_init_wait(r)
                    || self.jvmti.thread_state(r.thread).is_ok_and(|s| {
                        s & crate::jvmti_sys::JVMTI_THREAD_STATE_ALIVE == 0
                            || s & crate::jvmti_sys::JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER
                                != 0
                    })
            })
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
        let mut ex = st.exec.take()?;
        super::real_monitors::release_all(&mut ex);
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
        let mut notes = std::mem::take(&mut ex.notes);
        notes.extend(super::task_failures::notes(&ex));
        if matches!(end.kind, "deadlock" | "livelock") {
            self.note_unseen_threads(&st.known_threads, &mut ex.uncontrolled);
        }
        if !ex.uncontrolled.is_empty() {
            let what = uncontrolled_threads(&ex.uncontrolled);
            // A thrown failure happened in the JVM; its replay decides whether it is a finding.
            // A deadlock or livelock is the model's state, which a thread it does not see may
            // have changed in the JVM (a latch counted down there): no verdict.
            let seen_by_the_model_only = matches!(end.kind, "deadlock" | "livelock");
            if end.bug && !seen_by_the_model_only {
                notes.push(format!("{what}; the failure may depend on how they ran"));
            } else {
                kind = "uncontrolled".into();
                end.bug = true;
                end.bound = Some("uncontrolled");
                end.message = what;
            }
        }
        // The watchdog, the wall-clock bound, threads it never saw start: rankcheck could not
        // control the execution, so it says nothing about the program (neither a bug nor a
        // pass).
        let inconclusive = end.bug
            && matches!(
                end.bound,
                Some("watchdog" | "wall-clock" | "steps" | "uncontrolled")
            );
        let bug = end.bug && !inconclusive;
        // Run before the replayed execution only to warm the JVM up (`warm-from`): reported as
        // such, never counted, never a reason to stop.
        let warm_up = ex.index < self.options.first_execution;
        let steps_trace = (self.options.trace && !warm_up)
            .then(|| self.steps_trace(&st, &ex, end.kind == "deadlock"));
        super::class_init::release_all(&mut ex);
        let more = st.model.finish(bug).unwrap_or(false) && !st.model.strategy().exhausted();
        let exhausted = st.model.strategy().exhausted();
        if let Some(path) = &self.options.state {
            save_state(path, st.model.strategy().save());
        }
        let coverage = st.model.strategy().coverage();
        let hb = st.model.strategy().last_graph();
        let order = st.model.strategy().order_key();
        let shortfall = st.model.strategy().last_shortfall();
        st.finished_in_model = true;
        if !warm_up {
            st.executions += 1;
            st.bugs += u64::from(bug);
            st.inconclusive += u64::from(inconclusive);
            st.chunk_inconclusive += u64::from(inconclusive);
        }
        let schedule = (!warm_up
            && (end.bug
                || self.options.record_all
                || self.options.record_at == Some(ex.index)
                || self.options.replay.is_some()
                || self.is_plain()))
        .then(|| st.model.schedule().to_text());
        let result = ExecutionResult {
            index: ex.index,
            seed: self.options.seed,
            outcome: if warm_up {
                "warm-up"
            } else if bug {
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
            notes,
            coverage,
            exhausted,
            hb,
            order,
            shortfall,
            steps_trace,
            alone_then_shared: ex.confinement.blind(),
            timeouts_withheld: st.model.timeouts_withheld(),
        };
        // Plain main without `out=` says it in one paragraph (plain.rs) instead.
        if !(self.is_plain() && self.options.out.is_none()) {
            st.results.write(&result, self.options.verbose);
        }
        let hopeless = st.chunk_inconclusive >= self.options.max_inconclusive;
        let stop = bug && !self.options.keep_going;
        match self.options.chunk_plan() {
            Some(plan) => {
                // A chunk the strategy is done with, or one whose program rankcheck keeps
                // failing to control, gives way to the next chunk; a JVM that has not had one
                // controlled execution yet stops (the next chunk would fare no better).
                let controlled_once = st.executions > st.inconclusive;
                let next = plan.after(ex.index, !more || hopeless);
                if exhausted || stop || (hopeless && !controlled_once) || next.is_none() {
                    st.done = true;
                }
                st.next_index = next;
            }
            None => {
                let executions_left = st.executions < self.options.executions;
                if !more || (!warm_up && (!executions_left || hopeless || stop)) {
                    st.done = true;
                }
            }
        }
        Some(result)
    }
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

/// What an execution whose program threads started outside rankcheck's view says about them.
fn uncontrolled_threads(names: &[String]) -> String {
    let mut shown: Vec<String> = names.iter().take(3).map(|n| format!("'{n}'")).collect();
    if names.len() > 3 {
        shown.push(format!("and {} more", names.len() - 3));
    }
    format!(
        "{} thread(s) of the program ran uncontrolled ({}): they were started without \
         passing through rankcheck (by reflection, by JNI, by JDK code it does not rewrite, or \
         from a thread it does not control), so rankcheck neither scheduled them nor saw \
         their accesses; start them with Thread.start() or an ExecutorService in the program's \
         own code, from its own threads",
        names.len(),
        shown.join(", ")
    )
}
