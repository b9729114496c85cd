//! Quiet stretches: the running thread passes its next data accesses in Java (`RC.quietLeft`)
//! while the strategy promises no switch; what passed is added to the model when it closes.

use super::*;
use crate::ffi::{call, current_env, delete_local};
use jni::sys::jlong;

use java_harness::agent_contract::{QUIET_COVERS_INTERRUPT_QUERIES, QUIET_COVERS_MONITORS};

impl Control {
    /// `me` goes on running: if the strategy grants a quiet stretch, `RC` learns it. The grant
    /// is all the strategy allows, up to the step bound, in one piece: an endless loop still
    /// ends at `max-steps`, the watchdog still sees a computing thread as busy (its CPU time),
    /// and a timeout still stops it (JVMTI StopThread). Handing out the budget in chunks (a
    /// million accesses each, until 0.3.0) made the JIT compile the hook's call into the agent
    /// into every hot loop, which cost MolDyn's loops 60 % (one tracked array: 1.69 s against
    /// 1.06 s with one grant).
    pub(super) fn open_quiet(&self, st: &mut State, me: ThreadId) {
        // Only the non-preemptive baseline, never a search or a replay: an access that passes
        // in Java is a step even where the agent would not count one (the JDK's own use of
        // java.util.concurrent, a JDK static initializer — both depend on what the JVM did
        // before), so a schedule recorded with stretches may not replay without them, and the
        // other way round.
        if self.strategy_traits.switches_at_accesses || self.options.replay.is_some() {
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
            set_quiet_thread(&refs, thread);
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
            set_quiet_covers(&refs, covers);
            ex.quiet_covers = covers;
        }
        set_quiet_left(&refs, budget);
        ex.quiet = Some((me, budget));
    }

    /// `me` is back in the agent: the accesses it passed in Java during its quiet stretch become
    /// steps of the model. A decision comes back when the strategy ends the execution there.
    pub(super) fn close_quiet(
        &self,
        st: &mut State,
        me: ThreadId,
    ) -> Option<Result<Decision, ExecError>> {
        let ex = st.exec.as_mut()?;
        match ex.quiet {
            Some((holder, granted)) if holder == me => {
                ex.quiet = None;
                let refs = self.java()?;
                let left = take_quiet_left(&refs);
                // Monitors could pass in Java only if the stretch covered them.
                let held = if ex.quiet_covers & QUIET_COVERS_MONITORS != 0 {
                    take_quiet_held(&refs)
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
}

/// Names the thread (the current one's `Thread` object) that may pass data accesses in Java.
pub(super) fn set_quiet_thread(refs: &JavaRefs, thread: jobject) {
    let env = current_env();
    if !env.is_null() {
        call!(
            env,
            SetStaticObjectField,
            refs.rc,
            refs.quiet_thread,
            thread
        );
    }
}

/// Opens a quiet stretch: the named thread may pass its next `steps` data accesses in Java.
pub(super) fn set_quiet_left(refs: &JavaRefs, steps: u64) {
    let env = current_env();
    if !env.is_null() {
        let steps = steps.min(i64::MAX as u64) as jlong;
        call!(env, SetStaticLongField, refs.rc, refs.quiet_left, steps);
    }
}

/// Closes the current thread's quiet stretch: the accesses it did not use.
pub(super) fn take_quiet_left(refs: &JavaRefs) -> u64 {
    let env = current_env();
    if env.is_null() {
        return 0;
    }
    let left = call!(env, GetStaticLongField, refs.rc, refs.quiet_left);
    call!(env, SetStaticLongField, refs.rc, refs.quiet_left, 0);
    left.max(0) as u64
}

/// Writes what the next quiet stretches cover besides data accesses (`RC.quietCovers`).
pub(super) fn set_quiet_covers(refs: &JavaRefs, covers: i32) {
    let env = current_env();
    if !env.is_null() {
        call!(env, SetStaticIntField, refs.rc, refs.quiet_covers, covers);
    }
}

/// The monitors the current thread entered in Java during its stretch and still holds
/// (outermost first), as new local references; empties `RC.quietHeld`.
pub(super) fn take_quiet_held(refs: &JavaRefs) -> Vec<jobject> {
    let env = current_env();
    if env.is_null() {
        return Vec::new();
    }
    let depth = call!(env, GetStaticIntField, refs.rc, refs.quiet_held_depth);
    if depth <= 0 {
        return Vec::new();
    }
    call!(env, SetStaticIntField, refs.rc, refs.quiet_held_depth, 0);
    (0..depth)
        .map(|i| {
            let obj = call!(env, GetObjectArrayElement, refs.quiet_held, i);
            call!(
                env,
                SetObjectArrayElement,
                refs.quiet_held,
                i,
                std::ptr::null_mut()
            );
            obj
        })
        .collect()
}

/// Ends any quiet stretch (between executions).
pub(super) fn clear_quiet(refs: &JavaRefs) {
    let env = current_env();
    if env.is_null() {
        return;
    }
    for obj in take_quiet_held(refs) {
        delete_local(env, obj);
    }
    call!(env, SetStaticIntField, refs.rc, refs.quiet_covers, 0);
    call!(env, SetStaticLongField, refs.rc, refs.quiet_left, 0);
    call!(
        env,
        SetStaticObjectField,
        refs.rc,
        refs.quiet_thread,
        std::ptr::null_mut()
    );
}
