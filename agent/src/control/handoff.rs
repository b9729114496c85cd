//! The hand-off: a scheduling point announces the thread's next operation, the scheduler picks
//! who performs its pending one, and every thread but the chosen one waits for its turn; static
//! initializers and modelled waits.

use super::*;

impl Control {
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
        let st = self.lock();
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
        let mut st = match self.after_init_wait(st, epoch, me) {
            Ok(st) => st,
            Err(turn) => return turn,
        };
        if let Some(decision) = self.close_quiet(&mut st, me) {
            return self.settle(st, epoch, me, decision, Mode::Condvar);
        }
        if let Some(decision) = self.sync_real_monitors(&mut st, me) {
            return self.settle(st, epoch, me, decision, Mode::Condvar);
        }
        let mut st = self.release_init_waits(st);
        let op = {
            let State {
                exec, sites, model, ..
            } = &mut *st;
            let ex = exec.as_mut().expect("live execution");
            let events = model.events().as_slice();
            let mut view = ExecView {
                ex,
                sites,
                events,
                me,
            };
            let op = make(self, &mut view);
            for (reader, loc) in ex.unseen_reads.drain(..) {
                model.read_unseen(reader, loc);
            }
            op
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
        // The first instruction of a program's static initializer is a point (class_init.rs).
        let class_init = matches!(op, Op::ClassInit { .. });
        let not_a_point = !class_init
            && (untracked
                || op.site().is_some_and(jdk_own)
                || op
                    .site()
                    .and_then(|s| st.sites.get(&s))
                    .is_some_and(|s| s.clinit)
                || (self.options.clinit_check
                    && st.model.thread_count() > 1
                    && self.initializing()
                    && self.in_clinit(&mut st.clinit_methods)));
        let counted = untracked || app_clinit;
        // A static initializer that waits (joins the thread it started, waits for a task of a
        // pool, takes a lock another thread holds) must let the others run, or nothing ever
        // would: that wait is a scheduling point, where the thread cannot go on anyway.
        let waits_in_init = not_a_point
            && !untracked
            && !op.site().is_some_and(jdk_own)
            && st.model.would_block(me, &op);
        if not_a_point && !waits_in_init {
            // What a static initializer does to other threads must reach the model, or it would
            // be lost: a thread it starts (a pool it prestarts) would run uncontrolled, a permit
            // it gives or an interrupt it sends would never wake anyone, a query would get the
            // JVM's answer. So it is performed at once, without a choice of thread. (The JDK's
            // own uses stay its own; monitors are learnt at the next point; accesses below.)
            if performed_in_init(&op) && !op.site().is_some_and(jdk_own) {
                let decision = st.model.perform_now(me, op);
                return self.settle(st, epoch, me, decision, Mode::Condvar);
            }
            if counted && matches!(op, Op::Access { .. }) {
                self.note_caller(&mut st, me, &op, false);
                if let Ok(Some(decision)) = st.model.quiet_performed(me, 1) {
                    return self.settle(st, epoch, me, Ok(decision), Mode::Condvar);
                }
            }
            return Turn::Pass;
        }
        if matches!(op, Op::Park { timed: false, .. } | Op::MonitorEnter { .. }) {
            if let Some(end) = self.deadlock_at_wait(&st, me, op) {
                if let Some(ex) = st.exec.as_mut() {
                    ex.waiting_at_end = Some((me, op));
                }
                drop(st);
                self.end_execution(epoch, end);
                return Turn::Abort;
            }
        }
        self.note_caller(&mut st, me, &op, true);
        let decision = st.model.announce(me, op);
        self.settle(st, epoch, me, decision, Mode::Condvar)
    }

    /// With `trace=on`, for an operation at a JDK site that becomes `me`'s next event: the
    /// program's frame that called into the JDK, and for a scheduling point (`point`) whether
    /// it is a library's own bookkeeping (an access outside the tracked variables is never
    /// named as a cause: no need to ask).
    fn note_caller(&self, st: &mut State, me: ThreadId, op: &Op, point: bool) {
        let Some(site) = op
            .site()
            .filter(|&s| self.options.trace && crate::juc::is_jdk_site(s))
        else {
            return;
        };
        let Some(ex) = st.exec.as_mut() else {
            return;
        };
        if !point && !ex.may_walk_for_caller() {
            return;
        }
        let next = st.model.performed(me).unwrap_or(0);
        let internal =
            point && matches!(op, Op::Access { .. }) && crate::juc::library_internal(self.jvmti);
        let caller = crate::juc::program_caller(self.jvmti, site);
        if let Some(ex) = st.exec.as_mut() {
            if internal {
                ex.library_ops.insert((me.0, next));
            }
            if let Some((method, at)) = caller {
                ex.callers.insert((me.0, next), (method as usize, at));
            }
        }
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
    pub(super) fn initializing(&self) -> bool {
        self.any_uninitialized(&PENDING_INIT)
    }

    /// Forgets this thread's pending and running class initializations (at its end).
    pub(super) fn forget_pending(env: *mut JNIEnv) {
        for list in [&PENDING_INIT, &RUNNING_INIT] {
            list.with(|p| {
                for k in p.borrow_mut().drain(..) {
                    crate::ffi::delete_global(env, k);
                }
            });
        }
    }

    /// Whether the current thread runs the static initializer of one of the program's classes
    /// (one it began and that is not initialized yet): no stack walk, one thread-local look
    /// while it runs none.
    pub(super) fn running_program_init(&self) -> bool {
        self.any_uninitialized(&RUNNING_INIT)
    }

    /// Whether `classes` (this thread's) still holds a class not initialized yet; drops the
    /// others.
    fn any_uninitialized(&self, classes: &'static ClassList) -> bool {
        classes.with(|c| {
            let mut classes = c.borrow_mut();
            if classes.is_empty() {
                return false;
            }
            self.drop_initialized(&mut classes);
            !classes.is_empty()
        })
    }

    /// Removes (and frees) the classes of `classes` whose initialization has ended.
    fn drop_initialized(&self, classes: &mut Vec<jni::sys::jclass>) {
        let done = crate::jvmti_sys::JVMTI_CLASS_STATUS_INITIALIZED
            | crate::jvmti_sys::JVMTI_CLASS_STATUS_ERROR;
        let env = crate::ffi::current_env();
        classes.retain(|&k| {
            let finished = self.jvmti.class_status(k).map_or(true, |s| s & done != 0);
            if finished && !env.is_null() {
                crate::ffi::delete_global(env, k);
            }
            !finished
        });
    }

    /// Whether the current thread runs a static initializer (its own, or one it triggered):
    /// preempting it there would leave every other thread that touches the class blocked in
    /// the JVM's class-initialization lock (JVMS §5.5), where rankcheck cannot see. So code run
    /// by a static initializer has no scheduling points, as if it were atomic.
    pub(super) fn in_clinit(&self, known: &mut IdMap<usize, bool>) -> bool {
        let mut methods = [std::ptr::null_mut(); 48];
        let n = self.jvmti.current_methods(&mut methods);
        methods[..n].iter().any(|&m| {
            *known
                .entry(m as usize)
                .or_insert_with(|| self.jvmti.is_clinit(m))
        })
    }

    /// Like [`point`](Self::point) for `Wait` (timed when `nanos > 0`): after the model
    /// performed it, announces `WaitReturn` and, unless picked at once, tells the caller to
    /// wait for real.
    pub fn wait(&self, obj: jobject, nanos: u64, site: SiteId) -> Turn {
        let mut obj_id = ObjId(0);
        let turn = self.point(|c, v| {
            obj_id = c.obj_id(v.ex, obj);
            Some(Op::Wait {
                obj: obj_id,
                timed: nanos > 0,
                nanos,
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
    pub(super) fn settle(
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
                        // Not yet registered (it finds `resume` when it is), in the JVM's wait
                        // for a class (it finds `resume` in the MonitorWaited callback), or
                        // already gone.
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
            Mode::InitWait => rec.place = Place::InitWait,
        }
        drop(st);
        if let Some(cv) = wake {
            cv.notify_one();
        }
        match mode {
            Mode::Leave | Mode::InitWait => Turn::Go(OpOutcome::Normal),
            Mode::RealWait => Turn::RealWait,
            Mode::Condvar => self.await_turn(self.lock(), epoch, me),
        }
    }

    /// Waits on `me`'s condition variable until its turn comes (or the execution ends).
    pub(super) fn await_turn(
        &self,
        mut st: MutexGuard<'_, State>,
        epoch: u32,
        me: ThreadId,
    ) -> Turn {
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
}

/// Whether `op`, met where there is no scheduling point (a static initializer), is performed
/// in the model at once: everything with an effect on the model or an answer from it, but
/// accesses (counted as steps), monitors (learnt at the next point) and the lifecycle.
fn performed_in_init(op: &Op) -> bool {
    !matches!(
        op,
        Op::Begin
            | Op::End
            | Op::Access { .. }
            | Op::MonitorEnter { .. }
            | Op::MonitorExit { .. }
            | Op::Wait { .. }
            | Op::WaitReturn { .. }
    )
}
