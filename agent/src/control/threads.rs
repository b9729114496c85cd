//! The application threads' lifecycle: ThreadStart/ThreadEnd, children started through the
//! `threadStart` hook, their end in the model, uncaught throwables.

use super::*;

impl Control {
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
        // Only threads this execution tagged (its root, the children it started): any other
        // (JVM-internal, attached) must not take an object number, which would shift the
        // numbers of the program's objects depending on timing.
        let tag = self.jvmti.get_tag(thread).unwrap_or(0);
        if tag == 0 {
            remember_thread(env, &mut st.known_threads, thread);
        }
        let Some(ex) = st.exec.as_mut() else {
            return;
        };
        if tag == 0 {
            if let Some(name) = self.program_thread_name(thread) {
                ex.uncontrolled.push(name);
            }
        }
        if tag == 0 || (tag >> 32) as u32 != ex.epoch {
            return;
        }
        let Some(me) = self.thread_of(ex, thread) else {
            return;
        };
        let info = self.jvmti.thread_info(thread).ok();
        let rec = &mut ex.threads[me.index()];
        rec.thread = crate::ffi::new_global(env, thread);
        // ThreadStart runs on the new thread itself.
        rec.os_tid = crate::cpu::current_tid();
        if let Some(info) = info {
            rec.name = info.name;
            rec.daemon = info.daemon;
        }
        rec.place = Place::Running;
        // Set even when the execution is already over, so that every hook of this thread
        // throws ExecutionAborted.
        ME.with(|m| m.set(Some((epoch, me))));
        crate::cpu::pin_application_thread(&self.options);
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

    /// `thread`'s name when it belongs to the program rather than to the JDK: its thread group
    /// is `main` (the group of the program's first thread) or below it. The JDK's own threads
    /// (reference handler, finalizer, Cleaner, signal dispatcher, attach listener, process
    /// reaper) live in `system` or in groups of their own under it.
    fn program_thread_name(&self, thread: jobject) -> Option<String> {
        let (name, groups) = self.jvmti.thread_name_and_groups(thread).ok()?;
        is_program_group(&groups).then_some(name)
    }

    /// Throws `ExecutionAborted` into the current thread as soon as it runs Java code again.
    pub(super) fn stop_current(&self, thread: jobject) {
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
        if me == ThreadId::MAIN
            && self.is_plain()
            && !crate::jvmti::main_class_initialized(self.jvmti)
        {
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
            let lock = std::mem::replace(&mut rec.init_lock, std::ptr::null_mut());
            crate::ffi::delete_global(env, lock);
            super::blockers::release_blocker(env, rec);
        }
        self.harness_cv.notify_all();
        drop(st);
        if me == ThreadId::MAIN && self.is_plain() {
            // Plain main: the JVM would shut down once the other threads end; the monitor
            // writes the result and ends the process first.
            hold_main();
        }
    }

    pub fn is_plain(&self) -> bool {
        self.plain.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The JVM is exiting without rankcheck having seen an exit (uncontrolled code called
    /// `System.exit`): the execution ends here, as an exit.
    pub(super) fn end_unseen_exit(&self) {
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
    pub(super) fn perform_end(&self, epoch: u32, me: ThreadId) {
        let st = self.lock();
        if !live(&st, epoch) {
            return;
        }
        let Ok(mut st) = self.after_init_wait(st, epoch, me) else {
            return;
        };
        if let Some(decision) = self.close_quiet(&mut st, me) {
            self.settle(st, epoch, me, decision, Mode::Leave);
            return;
        }
        if let Some(decision) = self.sync_real_monitors(&mut st, me) {
            self.settle(st, epoch, me, decision, Mode::Leave);
            return;
        }
        let mut st = self.release_init_waits(st);
        self.announce_thread_object(&mut st, me);
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
            let end = self
                .deadlock_behind_end(&st, "every non-daemon thread finished")
                .unwrap_or(End {
                    kind: "finished",
                    bug: false,
                    message: note,
                    bound: None,
                    exit_status: Some(0),
                    trace: None,
                });
            drop(st);
            self.end_execution(epoch, end);
            return;
        }
        let decision = st.model.thread_finished(me);
        self.settle(st, epoch, me, decision, Mode::Leave);
    }

    /// Tells the model `me`'s own `Thread` object before its `End`: when a monitor operation
    /// of the execution named it by the time the end is performed, the end waits for that
    /// monitor and wakes its waiters, as the JVM's does. (`Thread.start` gave the object its
    /// final id; the main thread's has one only if the program used it.)
    fn announce_thread_object(&self, st: &mut State, me: ThreadId) {
        let Some(ex) = st.exec.as_ref() else {
            return;
        };
        let thread = ex.threads[me.index()].thread;
        if thread.is_null() {
            return;
        }
        // The object's id if it has a final one: a monitor operation would have given it.
        let Some(id) = self
            .tagged_id(ex.epoch, thread)
            .filter(|id| id & PROVISIONAL_ID == 0)
        else {
            return;
        };
        let _ = st.model.thread_object(me, ObjId(id));
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
}

/// The main thread past its end: it must not reach the JVM's shutdown before the monitor wrote
/// the result and ended the process (the monitor always does, within the watchdog's bounds).
pub fn hold_main() {
    std::thread::sleep(Duration::from_secs(120));
}

/// At most this many threads are remembered as seen (`State::known_threads`); past it, a
/// thread started without rankcheck that is still alive at a later deadlock counts again.
const KNOWN_THREADS: usize = 4096;

/// Remembers `thread` (a weak reference) as one whose start rankcheck saw or that was there
/// before the first execution.
pub(super) fn remember_thread(env: *mut JNIEnv, known: &mut Vec<KnownThread>, thread: jobject) {
    if known.len() < KNOWN_THREADS && !env.is_null() && !thread.is_null() {
        let weak = crate::ffi::call!(env, NewWeakGlobalRef, thread);
        if !weak.is_null() {
            known.push(KnownThread(weak));
        }
    }
}

impl Control {
    /// Adds to `uncontrolled` the program's threads that are alive but were neither there
    /// before the first execution nor seen starting: a thread started without rankcheck
    /// (by reflection, by JNI) whose start event has not run yet, on a loaded machine, when
    /// the model found every thread it knows blocked. Such a thread may still end the wait
    /// (count a latch down), so the deadlock or livelock is the model's alone.
    pub(super) fn note_unseen_threads(
        &self,
        known: &[KnownThread],
        uncontrolled: &mut Vec<String>,
    ) {
        let env = crate::ffi::current_env();
        if env.is_null() {
            return;
        }
        let Ok(threads) = self.jvmti.all_threads() else {
            return;
        };
        for thread in threads {
            let untagged = self.jvmti.get_tag(thread).is_ok_and(|t| t == 0);
            let seen = || {
                known.iter().any(|k| {
                    crate::ffi::call!(env, IsSameObject, k.0, thread) == jni::sys::JNI_TRUE
                })
            };
            if untagged && !seen() {
                if let Some(name) = self.program_thread_name(thread) {
                    if !uncontrolled.contains(&name) {
                        uncontrolled.push(name);
                    }
                }
            }
            crate::ffi::delete_local(env, thread);
        }
    }
}

/// Whether a thread group chain (innermost first, as [`Jvmti::thread_name_and_groups`] gives it)
/// is the program's: it passes through `main` directly under the root group.
///
/// [`Jvmti::thread_name_and_groups`]: crate::jvmti::Jvmti::thread_name_and_groups
fn is_program_group(names: &[String]) -> bool {
    names.len() >= 2 && names[names.len() - 2] == "main"
}

#[cfg(test)]
mod tests {
    use super::is_program_group;

    fn chain(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn program_threads_are_those_under_main() {
        assert!(is_program_group(&chain(&["main", "system"])));
        assert!(is_program_group(&chain(&["workers", "main", "system"])));
        assert!(!is_program_group(&chain(&["system"])));
        assert!(!is_program_group(&chain(&[
            "InnocuousThreadGroup",
            "system"
        ])));
        assert!(!is_program_group(&chain(&["main"])));
        assert!(!is_program_group(&[]));
    }
}
