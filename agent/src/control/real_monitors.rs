//! Real monitors the model learns of late: those taken inside JDK methods that stay
//! `synchronized` (`StringBuffer`, `Hashtable`, any JDK class loaded before the agent, whose
//! modifiers retransformation cannot change).
//!
//! Such a monitor is invisible while nobody contends for it. It matters when its holder stops
//! at a scheduling point inside the method (the method calls the program back: `toString`,
//! `hashCode`, `equals`) and the thread that runs next wants the same monitor: without the
//! model knowing, that thread would block in the JVM while holding the turn, and nothing could
//! run. JVMTI's MonitorContendedEnter tells the agent first, on the blocking thread, before it
//! blocks: the model adopts the holder's monitor (`Execution::adopt_monitor`), the contending
//! thread announces its `MonitorEnter` like any other, and the scheduler runs others until the
//! monitor is free. From then on the object is tracked: at every scheduling point of a thread
//! the real monitors it holds among the tracked ones are compared with the model, and what
//! changed unseen (an exit at the end of the JDK method, a take inside another one) is
//! performed at once, without a choice, before the thread's own operation. A thread's real
//! state at its points is the same in every run of one schedule, so replays stay in step.

use super::*;
use crate::ffi::{call, delete_local};
use java_harness::hooks::{SiteKind, SiteRecord};

/// A monitor some thread found taken where no scheduling point saw it.
pub(super) struct RealMonitor {
    /// JNI global reference to the object.
    obj: jobject,
    id: ObjId,
    /// Where it was first contended (the JDK method's frame), for the model's events.
    site: SiteId,
    /// The thread whose model hold of it was taken unseen (adopted, learnt at a point, or
    /// entered through [`Control::monitor_contended`]) and how many times: its exit is unseen
    /// too. Holds from rewritten code are not counted; their exits are hooks.
    unseen: Option<(ThreadId, u32)>,
}

// SAFETY: `obj` is a JNI global reference, valid in every thread.
unsafe impl Send for RealMonitor {}

/// What [`Control::adopt`] made of a contended enter.
struct Adopted {
    site: SiteId,
    /// The contending thread's own hold will be unseen (a JDK method's), not a rewritten
    /// `monitorenter`'s whose exit is a hook.
    unseen_hold: bool,
}

impl Control {
    /// JVMTI MonitorContendedEnter, on the thread about to block on `obj`'s monitor.
    pub fn monitor_contended(&self, env: *mut JNIEnv, obj: jobject) {
        let Some((epoch, me)) = current() else {
            return;
        };
        // Woken from a wait for a class initialization, this is its first stop: it waits for
        // its turn here, before the model learns who holds the monitor (class_init.rs).
        {
            let st = self.lock();
            if !live(&st, epoch) {
                return;
            }
            if self.after_init_wait(st, epoch, me).is_err() {
                return;
            }
        }
        let Ok(owner) = self.jvmti.monitor_owner(obj) else {
            return;
        };
        let adopted = {
            let mut st = self.lock();
            let adopted = if live(&st, epoch) {
                self.adopt(&mut st, env, me, owner, obj)
            } else {
                None
            };
            delete_local(env, owner);
            match adopted {
                Some(a) => a,
                // Not a controlled thread's, or not now: the thread blocks in the JVM, and the
                // watchdog says so if nothing frees the monitor.
                None => return,
            }
        };
        // The contending thread's enter, as a scheduling point: it runs on once the model
        // gives it the monitor, which happens after the holder's exit was performed. On
        // `Abort` the execution is over; the thread blocks in the JVM until the holder unwinds
        // (or is stopped), as a JVMTI callback cannot throw.
        let mut id = ObjId(0);
        let turn = self.point_for(true, |c, v| {
            id = v.obj(c, obj);
            Some(Op::MonitorEnter {
                obj: id,
                site: adopted.site,
            })
        });
        if turn != Turn::Go(OpOutcome::Normal) || !adopted.unseen_hold {
            return;
        }
        let mut st = self.lock();
        if let Some(m) = st
            .exec
            .as_mut()
            .and_then(|ex| ex.real_monitors.iter_mut().find(|m| m.id == id))
        {
            m.unseen = Some((me, 1));
        }
    }

    /// Makes the model see `owner`'s hold of `obj` (when `owner` is a controlled thread
    /// stopped at a scheduling point) and tracks `obj`; `None` when the model cannot take it
    /// over.
    fn adopt(
        &self,
        st: &mut State,
        env: *mut JNIEnv,
        me: ThreadId,
        owner: jobject,
        obj: jobject,
    ) -> Option<Adopted> {
        if owner.is_null() {
            return None;
        }
        let ex = st.exec.as_mut()?;
        if ex.threads[me.index()].place != Place::Running {
            return None;
        }
        let owner_obj = self.tagged_id(ex.epoch, owner)?;
        let holder = *ex.thread_of.get(&owner_obj)?;
        // Only a thread parked at a scheduling point holds what it holds at a moment fixed by
        // the schedule. One woken in a real `Object.wait()` retakes the monitor for a moment
        // (to return, or to wait again when it was not its turn): that wait in the JVM is
        // short, and no model state may depend on when it happens.
        if holder == me || ex.threads[holder.index()].place != Place::Parked {
            return None;
        }
        let id = self.obj_id(ex, obj);
        let at = match ex.real_monitors.iter().position(|m| m.id == id) {
            Some(at) => at,
            None => {
                let site = remember_site(
                    &mut st.site_places,
                    &mut st.site_lines,
                    site_record(self.jvmti.current_frame(), SiteKind::SyncMethodEnter),
                );
                ex.real_monitors.push(RealMonitor {
                    obj: crate::ffi::new_global(env, obj),
                    id,
                    site,
                    unseen: None,
                });
                ex.real_monitors.len() - 1
            }
        };
        let site = ex.real_monitors[at].site;
        let mut unseen_hold = true;
        match st.model.monitor(id) {
            Some((o, _)) if o == holder => {}
            // A rewritten `synchronized` block of `me` was given the monitor by the model,
            // which did not know that `holder` had it: take the grant back, and let the
            // block's enter wait like any other (its exit stays the block's hook).
            Some((o, 1)) if o == me => {
                st.model
                    .perform_now(me, Op::MonitorExit { obj: id, site })
                    .ok()?;
                st.model.adopt_monitor(holder, id).ok()?;
                ex.real_monitors[at].unseen = Some((holder, 1));
                unseen_hold = false;
            }
            Some(_) => return None,
            None => {
                st.model.adopt_monitor(holder, id).ok()?;
                ex.real_monitors[at].unseen = Some((holder, 1));
            }
        }
        // Where the holder took it, for readers (the contending thread's frame otherwise).
        let holder_thread = ex.threads[holder.index()].thread;
        let taken_at = match self.jvmti.monitor_frame(env, holder_thread, obj) {
            Some(frame) => remember_site(
                &mut st.site_places,
                &mut st.site_lines,
                site_record(Some(frame), SiteKind::SyncMethodEnter),
            ),
            None => site,
        };
        ex.adoptions
            .push((st.model.events().len(), holder, id, taken_at));
        Some(Adopted { site, unseen_hold })
    }

    /// Before `me`'s scheduling point: performs, without a choice, the takes and exits of
    /// tracked real monitors that happened since its last point where no point saw them. A
    /// decision other than "`me` runs on" (the execution ended) is returned for the caller to
    /// settle.
    pub(super) fn sync_real_monitors(
        &self,
        st: &mut State,
        me: ThreadId,
    ) -> Option<Result<Decision, ExecError>> {
        let State { exec, model, .. } = st;
        let ex = exec.as_mut()?;
        if ex.real_monitors.is_empty() {
            return None;
        }
        let env = crate::ffi::current_env();
        let owned = self.jvmti.owned_monitors().unwrap_or_default();
        let mut ops = Vec::new();
        for m in &mut ex.real_monitors {
            let really = owned
                .iter()
                .any(|&o| call!(env, IsSameObject, o, m.obj) != 0);
            let (obj, site) = (m.id, m.site);
            match (really, model.monitor(m.id), m.unseen) {
                (true, None, _) => {
                    ops.push(Op::MonitorEnter { obj, site });
                    m.unseen = Some((me, 1));
                }
                (false, Some((o, _)), Some((u, n))) if o == me && u == me => {
                    ops.extend((0..n).map(|_| Op::MonitorExit { obj, site }));
                    m.unseen = None;
                }
                _ => {}
            }
        }
        for o in owned {
            delete_local(env, o);
        }
        for op in ops {
            match model.perform_now(me, op) {
                Ok(Decision::Run { thread, .. }) if thread == me => {}
                other => return Some(other),
            }
        }
        None
    }
}

/// Adds `record` to the agent's site places and lines (for messages and traces); its id.
pub(super) fn remember_site(
    places: &mut IdMap<i64, Box<str>>,
    lines: &mut IdMap<i64, Box<str>>,
    record: SiteRecord,
) -> SiteId {
    let site = record.id;
    places
        .entry(site)
        .or_insert_with(|| crate::sites::place(&record).into_boxed_str());
    lines
        .entry(site)
        .or_insert_with(|| record.to_line().into_boxed_str());
    site
}

/// A place inside a method (a frame) where the agent learnt something of `kind`, as a
/// site-table record; its id depends only on the place and the kind, so it is the same in
/// every JVM.
pub(super) fn site_record(frame: Option<crate::jvmti::FrameParts>, kind: SiteKind) -> SiteRecord {
    let (class, method, descriptor, bci, line) = match frame {
        Some(f) => (
            f.class.replace('.', "/"),
            f.method,
            f.descriptor,
            f.bci,
            f.line,
        ),
        None => ("?".into(), "?".into(), String::new(), 0, None),
    };
    let key = match kind {
        SiteKind::SyncMethodEnter => {
            format!("rankcheck/monitor {class}.{method}{descriptor}@{bci}")
        }
        other => format!(
            "rankcheck/{} {class}.{method}{descriptor}@{bci}",
            other.as_str()
        ),
    };
    SiteRecord {
        id: java_harness::hooks::site_id(&key, 0),
        class,
        method,
        descriptor,
        bci,
        line,
        kind,
        detail: String::new(),
    }
}

/// Drops the execution's global references to tracked monitors.
pub(super) fn release_all(ex: &mut Exec) {
    let env = crate::ffi::current_env();
    for m in ex.real_monitors.drain(..) {
        crate::ffi::delete_global(env, m.obj);
    }
}
