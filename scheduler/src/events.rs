//! The event record: one [`Event`] per performed step, kept for every execution (a flat,
//! reused vector of 32-byte entries), from which happens-before graphs are built.

use crate::ids::{SiteId, ThreadId, VarId};
use crate::op::{Op, OpKind};

/// One performed step: (thread, operation kind, object/location, site, read/write, occurrence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub thread: ThreadId,
    /// The operation's kind (`Read`/`Write` for accesses).
    pub kind: OpKind,
    /// What the operation acts on, by kind: the `Loc` for `Read`/`Write`; the `ObjId` for
    /// monitor, wait and notify operations; the child's `ThreadId` for `Start`; the target's
    /// `ThreadId` for `Join`, `Interrupt`, `IsInterrupted`, `Unpark`; the thread's own id for
    /// `Begin`, `End`, `Interrupted`, `Park`, `Sleep`, `Yield`; the status (as `u64`) for `Exit`.
    pub target: u64,
    /// The variable of an access; the answer of a thread query ([`Op::is_thread_query`]: the
    /// `Thread.State` ordinal, the count of live threads), so that two executions whose query
    /// saw different answers have different happens-before graphs (HB pruning must not take
    /// one for the other); for an `End`, the thread's own `Thread` object when its monitor was
    /// in use (the end woke its waiters: [`Execution::thread_object`](crate::Execution::thread_object));
    /// `VarId::UNKNOWN` otherwise.
    pub var: VarId,
    /// The announcing site (`0` for `Begin`, `End`, `WaitReturn`).
    pub site: SiteId,
    /// Occurrence index: how many events this thread performed before this one in this
    /// execution (so `(thread, index)` names the event, and program order is `index` order).
    pub index: u32,
}

impl Event {
    /// The event of `thread` performing `op` as its `index`-th step; `child` is the id a `Start`
    /// created.
    pub(crate) fn new(thread: ThreadId, op: &Op, index: u32, child: Option<ThreadId>) -> Event {
        let own = u64::from(thread.0);
        let (target, var) = match *op {
            Op::Access { loc, var, .. } => (loc.0, var),
            Op::Start { .. } => (child.map_or(u64::MAX, |c| u64::from(c.0)), VarId::UNKNOWN),
            Op::Exit { status, .. } => (status as u32 as u64, VarId::UNKNOWN),
            _ => match (op.obj(), op.target()) {
                (Some(o), _) => (o.0, VarId::UNKNOWN),
                (None, Some(t)) => (u64::from(t.0), VarId::UNKNOWN),
                (None, None) => (own, VarId::UNKNOWN),
            },
        };
        Event {
            thread,
            kind: op.kind(),
            target,
            var,
            site: op.site().unwrap_or(0),
            index,
        }
    }

    /// This event, labelled with the answer its thread query got.
    pub(crate) fn answered(self, answer: u32) -> Event {
        Event {
            var: VarId(answer),
            ..self
        }
    }

    /// This `End`, labelled with the thread's own `Thread` object, whose waiters it woke. Object
    /// ids are numbered per execution from 1 and stay far below `u32::MAX`.
    pub(crate) fn ended_on(self, obj: crate::ObjId) -> Event {
        Event {
            var: VarId(obj.0 as u32),
            ..self
        }
    }

    /// Whether this is a data access (read or write).
    pub fn is_access(&self) -> bool {
        matches!(self.kind, OpKind::Read | OpKind::Write)
    }

    /// Whether this is a write access.
    pub fn is_write(&self) -> bool {
        self.kind == OpKind::Write
    }

    /// Whether two accesses of different threads conflict: same location, at least one write.
    pub fn conflicts_with(&self, other: &Event) -> bool {
        self.is_access()
            && other.is_access()
            && self.thread != other.thread
            && self.target == other.target
            && (self.is_write() || other.is_write())
    }
}

/// Every event of one execution, in the order performed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLog {
    events: Vec<Event>,
}

impl EventLog {
    /// An empty log.
    pub fn new() -> EventLog {
        EventLog::default()
    }

    pub(crate) fn push(&mut self, e: Event) {
        self.events.push(e);
    }

    pub(crate) fn clear(&mut self) {
        self.events.clear();
    }

    /// The events in execution order.
    pub fn as_slice(&self) -> &[Event] {
        &self.events
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event was performed.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The last event, if any.
    pub fn last(&self) -> Option<&Event> {
        self.events.last()
    }
}

impl std::ops::Deref for EventLog {
    type Target = [Event];
    fn deref(&self) -> &[Event] {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Loc, ObjId};

    #[test]
    fn events_are_small_and_name_their_target() {
        assert!(std::mem::size_of::<Event>() <= 32);
        let w = Event::new(
            ThreadId(1),
            &Op::Access {
                loc: Loc(9),
                var: VarId(3),
                write: true,
                site: 77,
            },
            4,
            None,
        );
        assert_eq!(
            (w.kind, w.target, w.var, w.site, w.index),
            (OpKind::Write, 9, VarId(3), 77, 4)
        );
        let r = Event::new(
            ThreadId(2),
            &Op::Access {
                loc: Loc(9),
                var: VarId(3),
                write: false,
                site: 78,
            },
            0,
            None,
        );
        assert!(w.conflicts_with(&r));
        assert!(!r.conflicts_with(&r));
        let n = Event::new(
            ThreadId(2),
            &Op::Notify {
                obj: ObjId(5),
                all: true,
                site: 1,
            },
            1,
            None,
        );
        assert_eq!((n.kind, n.target), (OpKind::NotifyAll, 5));
        let s = Event::new(ThreadId(0), &Op::Start { site: 2 }, 1, Some(ThreadId(3)));
        assert_eq!(s.target, 3);
    }
}
