//! Class initialization as a lock of the model (JVMS §5.5).
//!
//! The first instruction of a program's static initializer is a scheduling point
//! ([`Op::ClassInit`]): the JVM has just made the thread the class's initializer, and a thread
//! switched in there that touches the class waits for it inside the JVM, where no hook runs.
//! The harness thread finds that wait (the running thread is runnable for the JVM yet sits in
//! the wait set of a monitor: the class's initialization lock) and announces
//! [`Op::ClassInitWait`] on its behalf, so the scheduler runs the others.
//!
//! When the initializer returns, the JVM wakes the waiters, which then pass the lock one after
//! the other and run on to their next hook. The next scheduling point of any thread sees that a
//! waiter left the lock's wait set, waits until it has come to its next hook (where it stops
//! for its turn: it runs nothing the model sees meanwhile), and only then tells the model
//! ([`scheduler::Execution::class_init_ended`]): so the same point of every run of one schedule
//! finds the same threads enabled. Two threads each waiting for the other's class are a
//! deadlock of the model like any other.

use super::*;
use crate::ffi::{call, delete_global, delete_local, new_global};

/// A program's class whose static initializer a thread began.
pub(super) struct Initializing {
    /// Which of the execution's initializations this is (they are numbered as they begin).
    serial: u32,
    thread: ThreadId,
    /// JNI global reference to the class.
    class: jni::sys::jclass,
}

// SAFETY: `class` is a JNI global reference, valid in every thread.
unsafe impl Send for Initializing {}

/// What a thread waiting for a class initialization waits for, as far as the classes other
/// threads began initializing tell.
#[derive(Clone, Debug, Default)]
pub(super) struct WaitsFor {
    /// The initializer, when one thread alone initializes a class it could wait for.
    pub initializer: Option<ThreadId>,
    /// For messages: ` for class p.A, which t2 (B) initializes`.
    pub detail: Option<String>,
    /// The [`Initializing::serial`]s of the classes it could wait for; empty when none was
    /// known (it waits for a class whose initializer has no hook).
    classes: Vec<u32>,
}

impl Control {
    /// `RC.classInitBegin`: the current thread begins the static initializer of the program's
    /// class `klass`; a scheduling point once other threads exist.
    pub fn class_init_begun(
        &self,
        env: *mut JNIEnv,
        klass: jni::sys::jclass,
        site: SiteId,
    ) -> Turn {
        let Some((epoch, me)) = current() else {
            return Turn::Pass;
        };
        if klass.is_null() {
            return Turn::Pass;
        }
        RUNNING_INIT.with(|r| r.borrow_mut().push(new_global(env, klass)));
        let alone = {
            let mut st = self.lock();
            if !live(&st, epoch) {
                return Turn::Pass;
            }
            let alone = st.model.thread_count() < 2;
            let ex = st.exec.as_mut().expect("live execution");
            // Remembered even alone: the initializer may start a thread that comes to wait.
            ex.inits_begun += 1;
            ex.inits.push(Initializing {
                serial: ex.inits_begun,
                thread: me,
                class: new_global(env, klass),
            });
            alone
        };
        // The harness looks often from now on (a 20 ms sleep would delay its look).
        self.harness_cv.notify_all();
        // Alone, no thread could wait for it: no point (and the schedules of programs whose
        // classes initialize before their threads start stay as they were).
        if alone {
            return Turn::Pass;
        }
        self.point(|_, _| Some(Op::ClassInit { site }))
    }

    /// Whether a class initialization may be in progress: then the harness looks often (true),
    /// and finds the running thread waiting for it once its initializer is not running.
    /// Forgets the initializations that ended.
    pub(super) fn init_watch(&self, ex: &mut Exec) -> bool {
        if ex.inits.is_empty() {
            return false;
        }
        let env = crate::ffi::current_env();
        ex.inits.retain(|i| {
            let ended = self.init_ended(i.class);
            if ended {
                delete_global(env, i.class);
            }
            !ended
        });
        !ex.inits.is_empty()
    }

    /// Whether an initializer of [`Exec::inits`] is not running: the running thread may wait
    /// for it.
    pub(super) fn initializer_switched_out(&self, ex: &Exec) -> bool {
        ex.inits
            .iter()
            .any(|i| ex.threads[i.thread.index()].place != Place::Running)
    }

    /// On the harness thread: if the running thread waits inside the JVM for a class another
    /// thread is initializing, announces its [`Op::ClassInitWait`] and hands the turn on.
    /// True when it did.
    pub(super) fn catch_init_wait(&self, epoch: u32) -> bool {
        let mut st = self.lock();
        if !live(&st, epoch) {
            return false;
        }
        let Some(running) = st.model.running() else {
            return false;
        };
        let ex = st.exec.as_mut().expect("live execution");
        let rec = &ex.threads[running.index()];
        if rec.place != Place::Running || rec.thread.is_null() || !rec.init_lock.is_null() {
            return false;
        }
        let thread = rec.thread;
        let Some(lock) = self.init_wait_of(thread) else {
            return false;
        };
        let env = crate::ffi::current_env();
        // In place before the decision: one that ends the execution (a deadlock) leaves it.
        let waits_for = self.waits_for(ex, running);
        let rec = &mut ex.threads[running.index()];
        rec.init_for = waits_for;
        rec.init_lock = new_global(env, lock);
        rec.place = Place::InitWait;
        delete_local(env, lock);
        // What it passed in a quiet stretch before it came to wait becomes steps first.
        if let Some(decision) = self.close_quiet(&mut st, running) {
            self.settle(st, epoch, running, decision, Mode::InitWait);
            return true;
        }
        let mut st = self.release_init_waits(st);
        // Where it touched the class: its innermost frame of a class with a stable name (a
        // lambda's hidden class is named by its address, another in every JVM).
        let frame = (0..16)
            .map_while(|depth| self.jvmti.frame_at(thread, depth))
            .find(|f| !f.class.contains("$$Lambda") && !f.class.contains(".0x"));
        let State {
            site_places,
            site_lines,
            ..
        } = &mut *st;
        let site = super::real_monitors::remember_site(
            site_places,
            site_lines,
            super::real_monitors::site_record(frame, java_harness::hooks::SiteKind::ClassInitWait),
        );
        let decision = st.model.announce(running, Op::ClassInitWait { site });
        self.settle(st, epoch, running, decision, Mode::InitWait);
        true
    }

    /// Before a scheduling point: tells the model of every thread waiting for a class
    /// initialization that the JVM has woken it (it left the lock's wait set: the initializer
    /// returned, on the running thread, before this point), once it stopped at its next hook.
    /// One woken that waits again (for another class) waits on in the model.
    pub(super) fn release_init_waits<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
    ) -> MutexGuard<'a, State> {
        let mut deadline = None;
        loop {
            let mut pending = false;
            let mut again = Vec::new();
            let State { exec, model, .. } = &mut *st;
            let Some(ex) = exec.as_mut() else {
                return st;
            };
            let env = crate::ffi::current_env();
            for (i, rec) in ex.threads.iter_mut().enumerate() {
                let t = ThreadId(i as u32);
                if rec.init_lock.is_null() || model.status(t) != Some(ThreadStatus::InitWaiting) {
                    continue;
                }
                // Asking the JVM whether it left the wait set stops every thread (a safepoint):
                // asked at every point while an initializer runs long, it made programs that
                // initialize many classes on several threads fifty times slower. The wait
                // ends when the class's initializer returns, so it is asked once a class the
                // thread could wait for is initialized.
                if !self.some_init_ended(&ex.inits, &rec.init_for.classes) {
                    continue;
                }
                match self.jvmti.in_wait_set(rec.init_lock, rec.thread) {
                    Some(false) => {}
                    Some(true) => {
                        // Not one of those it waits for: asked again once another ends.
                        let inits = &ex.inits;
                        rec.init_for
                            .classes
                            .retain(|&serial| !self.some_init_ended(inits, &[serial]));
                        continue;
                    }
                    None => continue,
                }
                if rec.place != Place::InitWait {
                    // At its hook (or gone): it goes on when picked.
                    let _ = model.class_init_ended(t);
                    continue;
                }
                // Still on its way, or waiting inside the JVM for another class.
                match self.init_wait_of(rec.thread) {
                    Some(lock) => {
                        delete_global(
                            env,
                            std::mem::replace(&mut rec.init_lock, new_global(env, lock)),
                        );
                        delete_local(env, lock);
                        again.push(t);
                    }
                    None => pending = true,
                }
            }
            for t in again {
                ex.threads[t.index()].init_for = self.waits_for(ex, t);
            }
            if !pending {
                return st;
            }
            let patience = Duration::from_millis(self.options.block_ms.max(100));
            if *deadline.get_or_insert_with(|| Instant::now() + patience) <= Instant::now() {
                // It never came to a hook (it computes for long without one): let it be
                // picked; it stops at its hook whenever it comes.
                // When it is let go depends on time: said, since a replay may then differ.
                let State { exec, model, .. } = &mut *st;
                if let Some(ex) = exec.as_mut() {
                    let mut late = Vec::new();
                    for (i, rec) in ex.threads.iter().enumerate() {
                        let t = ThreadId(i as u32);
                        if rec.place == Place::InitWait
                            && model.status(t) == Some(ThreadStatus::InitWaiting)
                            && self.jvmti.in_wait_set(rec.init_lock, rec.thread) == Some(false)
                        {
                            let _ = model.class_init_ended(t);
                            late.push(format!("{t} ({})", rec.name));
                        }
                    }
                    if !late.is_empty() {
                        ex.notes.push(format!(
                            "{} woke from a class-initialization wait and did not come to a \
                             scheduling point within {} ms; let run from then on (a replay may \
                             differ from here)",
                            late.join(", "),
                            patience.as_millis()
                        ));
                    }
                }
                return st;
            }
            st = self
                .harness_cv
                .wait_timeout(st, Duration::from_millis(1))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The class-initialization lock `thread` waits on inside the JVM (a local reference): it
    /// is runnable for the JVM (an `Object.wait()` would say waiting), yet in the wait set of
    /// a monitor, and that monitor is a class's initialization lock (HotSpot's is an empty
    /// `int[]`). The JVM waits elsewhere too, on a class loader while another thread loads the
    /// same class: such a waiter is woken into the loader's monitor, which the loading thread
    /// may hold for long, so the model must not take that wait for one that ends when an
    /// initializer returns.
    fn init_wait_of(&self, thread: jobject) -> Option<jobject> {
        let state = self.jvmti.thread_state(thread).unwrap_or(0);
        if jvmti::is_blocked(state) {
            return None;
        }
        let lock = self.jvmti.contended_monitor(thread)?;
        let env = crate::ffi::current_env();
        let class = call!(env, GetObjectClass, lock);
        let init_lock = self.jvmti.class_signature(class).as_deref() == Some("[I")
            && call!(env, GetArrayLength, lock) == 0;
        delete_local(env, class);
        if init_lock && self.jvmti.in_wait_set(lock, thread) == Some(true) {
            Some(lock)
        } else {
            delete_local(env, lock);
            None
        }
    }

    /// At a hook of `me`: if it comes from a wait for a class initialization, it stops here
    /// until the model picks it (its `ClassInitWait` performed), then goes on with the hook.
    pub(super) fn after_init_wait<'a>(
        &'a self,
        st: MutexGuard<'a, State>,
        epoch: u32,
        me: ThreadId,
    ) -> Result<MutexGuard<'a, State>, Turn> {
        let woken = st
            .exec
            .as_ref()
            .is_some_and(|ex| ex.threads[me.index()].place == Place::InitWait);
        if !woken {
            return Ok(st);
        }
        self.harness_cv.notify_all();
        match self.await_turn(st, epoch, me) {
            Turn::Go(_) => {}
            other => return Err(other),
        }
        let mut st = self.lock();
        if !live(&st, epoch) {
            return Err(Turn::Abort);
        }
        let rec = &mut st.exec.as_mut().expect("live execution").threads[me.index()];
        let lock = std::mem::replace(&mut rec.init_lock, std::ptr::null_mut());
        delete_global(crate::ffi::current_env(), lock);
        Ok(st)
    }

    /// The classes threads other than `t` began initializing and that are not initialized:
    /// what `t` may wait for.
    fn initializing_for<'e>(&self, ex: &'e Exec, t: ThreadId) -> Vec<&'e Initializing> {
        ex.inits
            .iter()
            .filter(|i| i.thread != t && !self.init_ended(i.class))
            .collect()
    }

    /// What `t`, found waiting for a class initialization, may wait for.
    fn waits_for(&self, ex: &Exec, t: ThreadId) -> WaitsFor {
        let candidates = self.initializing_for(ex, t);
        WaitsFor {
            initializer: initializer_of(&candidates),
            detail: self.init_wait_detail(ex, &candidates),
            classes: candidates.iter().map(|i| i.serial).collect(),
        }
    }

    /// Whether one of the initializations `serials` ended (true when none is known: a wait
    /// for a class without a hook in its initializer may end at any point).
    fn some_init_ended(&self, inits: &[Initializing], serials: &[u32]) -> bool {
        serials.is_empty()
            || serials.iter().any(|&serial| {
                inits
                    .iter()
                    .find(|i| i.serial == serial)
                    .is_none_or(|i| self.init_ended(i.class))
            })
    }

    /// Whether the class's initialization ended (it is initialized, or failed).
    fn init_ended(&self, class: jni::sys::jclass) -> bool {
        let done = crate::jvmti_sys::JVMTI_CLASS_STATUS_INITIALIZED
            | crate::jvmti_sys::JVMTI_CLASS_STATUS_ERROR;
        self.jvmti
            .class_status(class)
            .map_or(true, |s| s & done != 0)
    }

    /// For a deadlock report: which of the `candidates` a thread waits for and who initializes
    /// it, when they tell (` for class p.A, which t2 (B) initializes`).
    fn init_wait_detail(&self, ex: &Exec, candidates: &[&Initializing]) -> Option<String> {
        let others: Vec<String> = candidates
            .iter()
            .map(|i| {
                let class = self
                    .jvmti
                    .class_name(i.class)
                    .unwrap_or_default()
                    .replace('/', ".");
                let name = ex
                    .threads
                    .get(i.thread.index())
                    .map_or("", |r| r.name.as_str());
                format!("{class}, which {} ({name}) initializes", i.thread)
            })
            .collect();
        match others.len() {
            0 => None,
            1 => Some(format!(" for class {}", others[0])),
            _ => Some(format!(" for one of the classes {}", others.join("; "))),
        }
    }

    /// Whether `rec` waits inside the JVM for a class initialization that has not ended (after
    /// an execution ended: such a thread cannot be stopped until its initializer unwinds).
    pub(super) fn stuck_in_init_wait(&self, rec: &ThreadRec) -> bool {
        rec.place == Place::InitWait
            && !rec.init_lock.is_null()
            && self.jvmti.in_wait_set(rec.init_lock, rec.thread) == Some(true)
    }
}

/// The thread whose class initialization a waiter waits for, when only one thread initializes
/// one of its `candidates`.
fn initializer_of(candidates: &[&Initializing]) -> Option<ThreadId> {
    let mut threads: Vec<ThreadId> = candidates.iter().map(|i| i.thread).collect();
    threads.dedup();
    match threads[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// Drops the execution's global references to classes and initialization locks.
pub(super) fn release_all(ex: &mut Exec) {
    let env = crate::ffi::current_env();
    for i in ex.inits.drain(..) {
        delete_global(env, i.class);
    }
    for rec in &mut ex.threads {
        let lock = std::mem::replace(&mut rec.init_lock, std::ptr::null_mut());
        delete_global(env, lock);
    }
}
