//! The recorded trace MCR reasons over: one execution's events, the write each read saw (under
//! sequential consistency, the last write to its location before it), and which events a prefix
//! must contain once it contains a given one (its must-happen-before closure).

use crate::events::Event;
use crate::ids::ThreadId;
use crate::op::OpKind;

/// A write a read can see: `None` is the location's value before the execution wrote it,
/// `Some(p)` the write at trace position `p`.
pub type Writer = Option<usize>;

/// One execution's events with the facts the solver needs, by trace position.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub events: Vec<Event>,
    /// For a read, the write it saw; `None` for every other event.
    pub saw: Vec<Writer>,
    /// Each thread's events (positions) in program order.
    pub by_thread: Vec<Vec<usize>>,
    /// The rank of each event in its thread's list.
    pub rank: Vec<usize>,
    /// The `Start` event that created each thread (none for the main thread).
    pub started_by: Vec<Option<usize>>,
    /// Each thread's `End` event, if it ended.
    pub ended_at: Vec<Option<usize>>,
    /// For a `Join` that came after its target's `End`: that `End` (the join waited for it).
    pub joined_end: Vec<Option<usize>>,
    /// For an ordered event ([`is_ordered`]): its rank among the ordered events; `usize::MAX`
    /// otherwise.
    pub ordered_rank: Vec<usize>,
    /// The ordered events, in trace order.
    pub ordered: Vec<usize>,
    /// The writes to each location, in trace order.
    writes_to: std::collections::HashMap<u64, Vec<usize>>,
    /// For a monitor enter: its thread holds another monitor just before it.
    nested: Vec<bool>,
    /// For a monitor enter: the latest earlier enter of the same monitor by another thread.
    entered_before: Vec<Option<usize>>,
}

/// Events whose relative order the solver keeps as recorded: wait/notify, park/unpark,
/// interrupts and queries of other threads' state. Their pairing (which notify woke which wait) is not in the event log, so MCR
/// does not reorder them; the coverage statement says so when a trace has any.
pub fn is_ordered(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Wait
            | OpKind::WaitReturn
            | OpKind::Notify
            | OpKind::NotifyAll
            | OpKind::Park
            | OpKind::Unpark
            | OpKind::Interrupt
            | OpKind::Interrupted
            | OpKind::IsInterrupted
            | OpKind::ThreadStatus
            | OpKind::LiveThreads
    )
}

impl Trace {
    /// The trace of `events` (one execution's log, in the order performed).
    pub fn new(events: &[Event]) -> Trace {
        let n = events.len();
        let threads = events
            .iter()
            .map(|e| e.thread.index() + 1)
            .chain(
                events
                    .iter()
                    .filter(|e| e.kind == OpKind::Start && e.target != u64::MAX)
                    .map(|e| e.target as usize + 1),
            )
            .max()
            .unwrap_or(0);
        let mut t = Trace {
            events: events.to_vec(),
            saw: vec![None; n],
            by_thread: vec![Vec::new(); threads],
            rank: vec![0; n],
            started_by: vec![None; threads],
            ended_at: vec![None; threads],
            joined_end: vec![None; n],
            ordered_rank: vec![usize::MAX; n],
            ordered: Vec::new(),
            writes_to: Default::default(),
            nested: vec![false; n],
            entered_before: vec![None; n],
        };
        let mut last_write: std::collections::HashMap<u64, usize> = Default::default();
        // Per thread: monitor → depth, and how many monitors it holds.
        let mut depths: Vec<std::collections::HashMap<u64, i64>> =
            vec![Default::default(); threads];
        let mut held = vec![0usize; threads];
        // Per monitor: the latest enter of each thread that entered it.
        let mut enters: std::collections::HashMap<u64, Vec<(ThreadId, usize)>> = Default::default();
        for (p, e) in events.iter().enumerate() {
            let ti = e.thread.index();
            let d = match e.kind {
                OpKind::MonitorEnter | OpKind::WaitReturn => 1,
                OpKind::MonitorExit | OpKind::Wait => -1,
                _ => 0,
            };
            if e.kind == OpKind::MonitorEnter {
                let own = depths[ti].get(&e.target).is_some_and(|&n| n > 0);
                t.nested[p] = held[ti] > usize::from(own);
                let list = enters.entry(e.target).or_default();
                t.entered_before[p] = list
                    .iter()
                    .filter(|(x, _)| *x != e.thread)
                    .map(|&(_, q)| q)
                    .max();
                match list.iter_mut().find(|(x, _)| *x == e.thread) {
                    Some(slot) => slot.1 = p,
                    None => list.push((e.thread, p)),
                }
            }
            if d != 0 {
                let n = depths[ti].entry(e.target).or_default();
                let before = *n;
                *n += d;
                if before <= 0 && *n > 0 {
                    held[ti] += 1;
                } else if before > 0 && *n <= 0 {
                    held[ti] = held[ti].saturating_sub(1);
                }
            }
            let list = &mut t.by_thread[e.thread.index()];
            t.rank[p] = list.len();
            list.push(p);
            match e.kind {
                OpKind::Read => t.saw[p] = last_write.get(&e.target).copied(),
                OpKind::Write => {
                    last_write.insert(e.target, p);
                    t.writes_to.entry(e.target).or_default().push(p);
                }
                OpKind::Start if e.target != u64::MAX => {
                    t.started_by[e.target as usize] = Some(p);
                }
                OpKind::End => t.ended_at[e.thread.index()] = Some(p),
                OpKind::Join => {
                    t.joined_end[p] = t.ended_at.get(e.target as usize).copied().flatten();
                }
                _ => {}
            }
            if is_ordered(e.kind) {
                t.ordered_rank[p] = t.ordered.len();
                t.ordered.push(p);
            }
        }
        t
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the trace has no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Whether the event at `p` is a read.
    pub fn is_read(&self, p: usize) -> bool {
        self.events[p].kind == OpKind::Read
    }

    /// Whether the event at `a` comes before the one at `b` in program order.
    pub fn po_before(&self, a: usize, b: usize) -> bool {
        self.events[a].thread == self.events[b].thread && self.rank[a] < self.rank[b]
    }

    /// The writes a read at `r` could see instead of the one it saw: the initial value and
    /// every write to its location in the trace, except the one it saw and writes that follow
    /// it in its own thread.
    pub fn other_writers(&self, r: usize) -> Vec<Writer> {
        let loc = self.events[r].target;
        let mut out = Vec::new();
        if self.saw[r].is_some() {
            out.push(None);
        }
        for &p in self.writes_to.get(&loc).map_or(&[][..], Vec::as_slice) {
            if Some(p) != self.saw[r] && !self.po_before(r, p) {
                out.push(Some(p));
            }
        }
        out
    }

    /// How many events of each thread a prefix holds that holds `seeds` and everything they
    /// must come after: program order, the write each read must see (`needs` gives it; it may
    /// differ from what the read saw), a thread's start before its events, a joined thread's end
    /// before the join, every earlier ordered event before an ordered one.
    pub fn closure(&self, seeds: &[usize], needs: impl Fn(usize) -> Writer) -> Vec<usize> {
        let mut count = vec![0usize; self.by_thread.len()];
        let mut work: Vec<usize> = seeds.to_vec();
        let mut ordered_upto = 0usize;
        while let Some(p) = work.pop() {
            let t = self.events[p].thread.index();
            if count[t] > self.rank[p] {
                continue;
            }
            let from = count[t];
            count[t] = self.rank[p] + 1;
            for &q in &self.by_thread[t][from..count[t]] {
                if self.is_read(q) {
                    work.extend(needs(q));
                }
                work.extend(self.joined_end[q]);
                if self.ordered_rank[q] != usize::MAX && self.ordered_rank[q] >= ordered_upto {
                    work.extend(&self.ordered[ordered_upto..self.ordered_rank[q]]);
                    ordered_upto = self.ordered_rank[q] + 1;
                }
            }
            if from == 0 {
                work.extend(self.started_by[t]);
            }
        }
        count
    }

    /// For every thread not in `except` whose first `want[t]` events leave it holding a monitor:
    /// its event that releases the last of them, if the trace has one. A prefix that stops a
    /// thread inside a critical section keeps every other thread out of it, so the solver is
    /// given the whole section (the thread's later events saw what they saw, so it runs them
    /// the same way); `except` holds the thread whose read changes, whose later events may not
    /// happen, and for a lock-order item the thread that must stay before its acquisition.
    pub fn releases(&self, want: &[usize], except: &[ThreadId]) -> Vec<usize> {
        let mut out = Vec::new();
        for (t, list) in self.by_thread.iter().enumerate() {
            if except.iter().any(|x| x.index() == t) {
                continue;
            }
            let mut depth: std::collections::HashMap<u64, i64> = Default::default();
            let mut held = 0usize;
            for (i, &p) in list.iter().enumerate() {
                let e = &self.events[p];
                let d = match e.kind {
                    OpKind::MonitorEnter | OpKind::WaitReturn => 1,
                    OpKind::MonitorExit | OpKind::Wait => -1,
                    _ => 0,
                };
                if d != 0 {
                    let n = depth.entry(e.target).or_default();
                    if *n == 0 && d > 0 {
                        held += 1;
                    }
                    *n += d;
                    if *n == 0 && d < 0 {
                        held = held.saturating_sub(1);
                    }
                }
                if i + 1 >= want[t] && held == 0 {
                    if i + 1 > want[t] {
                        out.push(p);
                    }
                    break;
                }
            }
        }
        out
    }

    /// Whether the thread of the event at `p` holds a monitor other than `p`'s target just
    /// before it (so an acquisition at `p` is nested: the shape a lock-order deadlock needs).
    pub fn holds_another(&self, p: usize) -> bool {
        self.nested[p]
    }

    /// For a monitor enter at `p`: the latest earlier enter of the same monitor by another
    /// thread, if any.
    pub fn entered_before(&self, p: usize) -> Option<usize> {
        self.entered_before[p]
    }

    /// The thread of the event at `p`.
    pub fn thread(&self, p: usize) -> ThreadId {
        self.events[p].thread
    }
}

/// An event for hand-built traces in tests: `thread` performs `kind` on `target` as its
/// `index`-th step.
#[cfg(test)]
pub(super) fn ev(thread: u32, kind: OpKind, target: u64, index: u32) -> Event {
    Event {
        thread: ThreadId(thread),
        kind,
        target,
        var: crate::ids::VarId::UNKNOWN,
        site: 1,
        index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// main: start 1, write x; thread 1: read x, write y; main: read y.
    fn sample() -> Trace {
        Trace::new(&[
            ev(0, OpKind::Begin, 0, 0),
            ev(0, OpKind::Start, 1, 1),
            ev(1, OpKind::Begin, 1, 0),
            ev(1, OpKind::Read, 7, 1),
            ev(0, OpKind::Write, 7, 2),
            ev(1, OpKind::Write, 8, 2),
            ev(0, OpKind::Read, 8, 3),
        ])
    }

    #[test]
    fn reads_see_the_last_write_before_them() {
        let t = sample();
        assert_eq!(t.saw[3], None);
        assert_eq!(t.saw[6], Some(5));
        assert_eq!(t.other_writers(3), vec![Some(4)]);
        assert_eq!(t.other_writers(6), vec![None]);
        assert_eq!(t.started_by[1], Some(1));
    }

    #[test]
    fn the_closure_follows_program_order_starts_and_reads_from() {
        let t = sample();
        // Main's read of y with what it saw pulls in thread 1's write, its read, its start.
        assert_eq!(t.closure(&[6], |q| t.saw[q]), vec![4, 3]);
        // Thread 1's read alone needs main up to the start.
        assert_eq!(t.closure(&[3], |q| t.saw[q]), vec![2, 2]);
    }
}
