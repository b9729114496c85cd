//! Deadlocks the end of an execution hides: when a program ends without failing (it calls
//! `System.exit(0)`, or its last non-daemon thread finishes) while some of its threads wait
//! for each other in a cycle, those threads are deadlocked all the same. Programs that check
//! for a deadlock by sleeping and then exit, and daemon workers, hide them from the JVM; the
//! cycle is the proof that no schedule could have let them go on.
//!
//! A cycle through `java.util.concurrent` locks is found as it forms, too, when the last of its
//! threads parks or blocks on a monitor ([`Control::deadlock_at_wait`]): the scheduler sees
//! cycles of monitors alone, since only the agent can read a lock's owner.

use super::*;

impl Control {
    /// Threads that wait for each other in a cycle (each blocked entering a monitor the next
    /// holds, joining the next, or parked on a lock the next owns, none with a timeout), with
    /// the operations they wait at: blocked for ever, whatever the others do. Empty when there
    /// is no such cycle.
    fn wait_cycle(&self, st: &State) -> Vec<(ThreadId, Op)> {
        let Some(ex) = st.exec.as_ref() else {
            return Vec::new();
        };
        let n = st.model.thread_count() as usize;
        let waits_for: Vec<Option<ThreadId>> = (0..n)
            .map(|i| self.release_awaited(st, ex, ThreadId(i as u32)))
            .collect();
        for start in 0..n {
            // Each thread waits for at most one other: follow the chain until it ends or
            // comes back on itself (at most n steps, each to a thread not on the path yet).
            let mut path = vec![start];
            let mut at = start;
            while let Some(next) = waits_for[at].map(|t| t.index()).filter(|&i| i < n) {
                if let Some(k) = path.iter().position(|&p| p == next) {
                    return path[k..]
                        .iter()
                        .filter_map(|&i| {
                            let t = ThreadId(i as u32);
                            st.model.pending(t).map(|op| (t, op))
                        })
                        .collect();
                }
                path.push(next);
                at = next;
            }
        }
        Vec::new()
    }

    /// The thread whose release `t` waits for without a timeout: the owner of the monitor it
    /// is blocked entering, the thread it joins, the owner of the lock it parked for.
    fn release_awaited(&self, st: &State, ex: &Exec, t: ThreadId) -> Option<ThreadId> {
        // A timed join or park ends by itself: no wait for ever.
        if matches!(
            st.model.pending(t),
            Some(Op::Join { timed: true, .. } | Op::Park { timed: true, .. })
        ) {
            return None;
        }
        match st.model.status(t)? {
            ThreadStatus::BlockedOnMonitor { owner, .. } => owner,
            ThreadStatus::Joining { target } => Some(target),
            ThreadStatus::Parked => self.park_holder(ex, t),
            _ => None,
        }
    }

    /// `me` is about to wait with `op`: park, untimed, for a lock (its blocker remembered), or
    /// enter a monitor another thread owns. When that lock's holder waits, through others, for
    /// `me`, none of them in an acquisition an interrupt or a timeout can end, they are
    /// deadlocked now, while other threads may still run (a health monitor that never stops
    /// would otherwise keep the execution going to its time limit). A cycle of monitors alone
    /// the scheduler sees by itself; this one goes through `java.util.concurrent` locks, whose
    /// owners only the agent can read.
    pub(super) fn deadlock_at_wait(&self, st: &State, me: ThreadId, op: Op) -> Option<End> {
        let ex = st.exec.as_ref()?;
        let mut at = match op {
            Op::Park { timed: false, .. } => self.park_holder(ex, me)?,
            Op::MonitorEnter { obj, .. } => st.model.monitor(obj).map(|(o, _)| o)?,
            _ => return None,
        };
        // Every monitor entry and park comes here: nothing is allocated for a free or
        // re-entered monitor, or a lock nobody holds.
        if at == me {
            return None;
        }
        let n = st.model.thread_count() as usize;
        let mut cycle = vec![(me, op)];
        while at != me {
            if cycle.len() > n || cycle.iter().any(|&(t, _)| t == at) {
                return None;
            }
            cycle.push((at, st.model.pending(at)?));
            at = self.release_awaited(st, ex, at)?;
        }
        let escapable = |t: ThreadId| {
            let Some(rec) = ex.threads.get(t.index()) else {
                return true;
            };
            let stack = self.jvmti.stack(rec.thread, 32).unwrap_or_default();
            stack.is_empty()
                || stack.iter().any(|f| {
                    f.contains("Interruptibly(") || f.contains("Nanos(") || f.contains(".tryLock(")
                })
        };
        let parks = |op: &Op| matches!(op, Op::Park { .. });
        if !cycle.iter().any(|(_, op)| parks(op))
            || cycle.iter().any(|(t, op)| parks(op) && escapable(*t))
        {
            return None;
        }
        Some(End {
            kind: "deadlock",
            bug: true,
            message: format!(
                "deadlock: {} (waiting for each other's locks for ever, while other threads \
                 still run)",
                self.blocked_words(st, &cycle)
            ),
            bound: None,
            exit_status: None,
            trace: None,
        })
    }

    /// The end of an execution that ended without failing (`how`: `System.exit(0)`, every
    /// thread finished) while some of its threads wait for each other in a cycle: those are
    /// deadlocked, which the program's end hides (a program that checks for a deadlock by
    /// sleeping, then exits, or daemon threads); `None` without such a cycle.
    pub(super) fn deadlock_behind_end(&self, st: &State, how: &str) -> Option<End> {
        let cycle = self.wait_cycle(st);
        if cycle.is_empty() {
            return None;
        }
        Some(End {
            kind: "deadlock",
            bug: true,
            message: format!(
                "deadlock: {} (the program ended, {how}, with these threads waiting for each \
                 other for ever)",
                self.blocked_words(st, &cycle)
            ),
            bound: None,
            exit_status: None,
            trace: None,
        })
    }
}
