//! Which of SURW's events are *interesting*: the selection that makes the walk "selective".
//!
//! An access is worth interleaving only if it touches a location that two threads use, one of
//! them writing, and that no one monitor guards at every access (the acquisitions of such a
//! monitor, interesting themselves, already order those accesses); a monitor acquisition only
//! if its object is entered by two threads. Everything
//! else (a thread's own objects, read-only data, locks nobody contends) runs at once, so the
//! uniform sampling is spent on the orders that can change what the program sees. Library code
//! makes the difference: thousands of private accesses inside a collection or an executor would
//! otherwise dilute the one racing pair until the walk almost never splits it.
//!
//! The selection is learned from whole executions (the first one treats every access and
//! acquisition as interesting) and only grows, keyed by what is stable across executions: the
//! variable of an access and the site of an access or acquisition (locations and objects are
//! renumbered by every execution).

use crate::events::{Event, EventLog};
use crate::ids::{SiteId, ThreadId, VarId};
use crate::op::{Op, OpKind};
use std::collections::{HashMap, HashSet};

/// Whether an operation of this kind is interesting whatever it acts on: blocking, waking,
/// thread queries and class initializations, whose order always matters.
fn always_interesting(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Wait
            | OpKind::WaitReturn
            | OpKind::Notify
            | OpKind::NotifyAll
            | OpKind::Park
            | OpKind::Unpark
            | OpKind::Yield
            | OpKind::Sleep
            | OpKind::Interrupt
            | OpKind::IsInterrupted
            | OpKind::ThreadStatus
            | OpKind::LiveThreads
            | OpKind::ClassInit
            | OpKind::ClassInitWait
    )
}

/// What the executions so far showed can race.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Whether an execution has been learned from; before, every access and acquisition counts.
    learned: bool,
    /// Variables of locations two threads accessed, one of them writing.
    vars: HashSet<VarId>,
    /// Sites of accesses to such locations and of acquisitions of objects two threads entered.
    sites: HashSet<SiteId>,
}

/// Who used one location or monitor in an execution, and for a location the monitors held at
/// every access of it (`None` before the first; an empty set once two accesses shared none).
#[derive(Clone)]
struct Users {
    first: ThreadId,
    several: bool,
    written: bool,
    guards: Option<Vec<u64>>,
}

impl Selection {
    /// Whether an operation of `kind` on variable `var` at `site` is interesting.
    pub fn interesting(&self, kind: OpKind, var: VarId, site: SiteId) -> bool {
        match kind {
            OpKind::Read | OpKind::Write => {
                !self.learned || self.sites.contains(&site) || self.vars.contains(&var)
            }
            OpKind::MonitorEnter => !self.learned || self.sites.contains(&site),
            kind => always_interesting(kind),
        }
    }

    /// [`Selection::interesting`] of a pending operation.
    pub fn interesting_op(&self, op: &Op) -> bool {
        let var = match *op {
            Op::Access { var, .. } => var,
            _ => VarId::UNKNOWN,
        };
        self.interesting(op.kind(), var, op.site().unwrap_or(0))
    }

    /// [`Selection::interesting`] of a performed event.
    pub fn interesting_event(&self, e: &Event) -> bool {
        self.interesting(e.kind, e.var, e.site)
    }

    /// Adds what `events` (one whole execution) showed can race; whether the selection changed.
    /// A location whose every access held one same monitor cannot race: the acquisitions of
    /// that monitor order its accesses, so they are interesting instead.
    pub fn learn(&mut self, events: &EventLog) -> bool {
        let mut users: HashMap<(bool, u64), Users> = HashMap::new();
        // Per thread, the monitors it holds, with their nesting depth.
        let mut held: HashMap<ThreadId, Vec<(u64, u32)>> = HashMap::new();
        for e in events.iter() {
            match e.kind {
                OpKind::MonitorEnter => {
                    let list = held.entry(e.thread).or_default();
                    match list.iter_mut().find(|(m, _)| *m == e.target) {
                        Some((_, depth)) => *depth += 1,
                        None => list.push((e.target, 1)),
                    }
                }
                OpKind::MonitorExit => {
                    if let Some(list) = held.get_mut(&e.thread) {
                        if let Some((_, depth)) = list.iter_mut().find(|(m, _)| *m == e.target) {
                            *depth = depth.saturating_sub(1);
                        }
                        list.retain(|&(_, depth)| depth > 0);
                    }
                }
                _ => {}
            }
            let Some(key) = Self::key(e) else { continue };
            let write = e.kind == OpKind::Write;
            let u = users.entry(key).or_insert(Users {
                first: e.thread,
                several: false,
                written: false,
                guards: None,
            });
            u.several |= u.first != e.thread;
            u.written |= write;
            if key.0 {
                let mine = held.get(&e.thread).map_or(&[][..], Vec::as_slice);
                match &mut u.guards {
                    // The first access: every monitor held may guard it.
                    None => u.guards = Some(mine.iter().map(|&(m, _)| m).collect()),
                    Some(g) => g.retain(|m| mine.iter().any(|&(h, _)| h == *m)),
                }
            }
        }
        let mut changed = !self.learned;
        self.learned = true;
        for e in events.iter() {
            let Some(key) = Self::key(e) else { continue };
            let u = &users[&key];
            // A monitor entered by two threads is contended whoever writes; a location only
            // when one of them writes and no monitor guards all its accesses.
            let guarded = u.guards.as_ref().is_some_and(|g| !g.is_empty());
            if !u.several || (key.0 && (!u.written || guarded)) {
                continue;
            }
            changed |= self.sites.insert(e.site);
            if key.0 && e.var != VarId::UNKNOWN {
                changed |= self.vars.insert(e.var);
            }
        }
        changed
    }

    /// The location (`true`, for accesses) or monitor (`false`) an event uses, if either.
    fn key(e: &Event) -> Option<(bool, u64)> {
        match e.kind {
            OpKind::Read | OpKind::Write => Some((true, e.target)),
            OpKind::MonitorEnter => Some((false, e.target)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log of `(thread, kind, target, site)` steps (accesses of variable `target`).
    fn log(steps: &[(u32, OpKind, u64, SiteId)]) -> EventLog {
        let mut log = EventLog::new();
        for (i, &(thread, kind, target, site)) in steps.iter().enumerate() {
            log.push(Event {
                thread: ThreadId(thread),
                kind,
                target,
                var: VarId(target as u32),
                site,
                index: i as u32,
            });
        }
        log
    }

    #[test]
    fn a_location_one_monitor_guards_at_every_access_is_not_interesting() {
        use OpKind::*;
        // Two threads write 9, each under monitor 5; thread 2 also writes 8 outside it.
        let guarded = log(&[
            (1, MonitorEnter, 5, 10),
            (1, Write, 9, 11),
            (1, MonitorExit, 5, 12),
            (2, MonitorEnter, 5, 10),
            (2, Write, 9, 11),
            (2, MonitorExit, 5, 12),
            (1, Write, 8, 13),
            (2, Write, 8, 14),
        ]);
        let mut s = Selection::default();
        assert!(s.learn(&guarded));
        assert!(s.interesting(MonitorEnter, VarId::UNKNOWN, 10));
        assert!(!s.interesting(Write, VarId(9), 11));
        assert!(s.interesting(Write, VarId(8), 13));
        // One access of 9 without the monitor: the lock no longer orders them all.
        let unguarded = log(&[
            (1, MonitorEnter, 5, 10),
            (1, Write, 9, 11),
            (1, MonitorExit, 5, 12),
            (2, Write, 9, 15),
        ]);
        let mut s = Selection::default();
        s.learn(&unguarded);
        assert!(s.interesting(Write, VarId(9), 11));
    }
}
