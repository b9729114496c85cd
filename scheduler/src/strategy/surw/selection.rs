//! Which of SURW's events are *interesting*: the selection that makes the walk "selective".
//!
//! An access is worth interleaving only if it touches a location that two threads use, one of
//! them writing; a monitor acquisition only if its object is entered by two threads. Everything
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

/// Who used one location or monitor in an execution.
#[derive(Clone, Copy)]
struct Users {
    first: ThreadId,
    several: bool,
    written: bool,
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
    pub fn learn(&mut self, events: &EventLog) -> bool {
        let mut users: HashMap<(bool, u64), Users> = HashMap::new();
        for e in events.iter() {
            let Some(key) = Self::key(e) else { continue };
            let write = e.kind == OpKind::Write;
            users
                .entry(key)
                .and_modify(|u| {
                    u.several |= u.first != e.thread;
                    u.written |= write;
                })
                .or_insert(Users {
                    first: e.thread,
                    several: false,
                    written: write,
                });
        }
        let mut changed = !self.learned;
        self.learned = true;
        for e in events.iter() {
            let Some(key) = Self::key(e) else { continue };
            let u = users[&key];
            // A monitor entered by two threads is contended whoever writes; a location only
            // when one of them writes.
            if !u.several || (key.0 && !u.written) {
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
