//! MCR's constraint solver: a backtracking search for an order of a prefix of the recorded
//! trace in which every read sees the write it must see.
//!
//! The prefix is given as how many events of each thread it holds (a program-order-closed set,
//! [`Trace::closure`]). An order is sought that keeps program order, starts before a thread's
//! events, a joined thread's end before the join, the recorded order of the ordered events
//! (wait/notify, park/unpark, interrupts), mutual exclusion of monitors (re-entrant; a wait
//! releases its monitor and its return takes it back), and for every read: the last write to
//! its location before it is the one it must see (`None`: no write before it). A write may go
//! only once every read that must see the location's current value has been placed, so the
//! search never builds a state no read can recover from.
//!
//! The search tries the threads in the order their next events had in the recording, so a
//! prefix that is nearly the recorded one is found at once; states that failed are remembered
//! by hash and not searched twice. Its work is bounded by a number of nodes: past it, the
//! answer is [`Solved::Cut`], and the caller's coverage statement says a prefix was not
//! decided.
//!
//! A pure Rust search rather than an SMT solver (Z3): it needs no C++ library or bindgen on a
//! user's machine, and the traces of the bundled programs are small enough for it.

use super::trace::{Trace, Writer};
use crate::ids::ThreadId;
use crate::op::OpKind;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// The solver's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solved {
    /// An order of the prefix's events (trace positions).
    Order(Vec<usize>),
    /// No order exists.
    Infeasible,
    /// The node bound was reached before an answer.
    Cut,
}

/// What one placement changed, to undo it.
#[derive(Clone, Debug)]
struct Undo {
    thread: usize,
    position: usize,
    last: Option<(u64, Option<Writer>)>,
    owner: Option<(u64, Option<(ThreadId, u32)>)>,
    saved: Option<Option<(u64, u32)>>,
    ordered: bool,
}

struct Frame {
    options: Vec<usize>,
    next: usize,
    hash: u64,
    applied: Option<Undo>,
}

/// One search over one prefix.
struct Search<'a, F: Fn(usize) -> Writer> {
    trace: &'a Trace,
    needs: F,
    want: &'a [usize],
    pos: Vec<usize>,
    placed: Vec<bool>,
    /// The last write placed per location (absent: none yet).
    last: BTreeMap<u64, Writer>,
    /// Reads not placed yet, per (location, the write they must see).
    pending: HashMap<(u64, Writer), u32>,
    owner: BTreeMap<u64, (ThreadId, u32)>,
    saved: BTreeMap<usize, (u64, u32)>,
    ordered_next: usize,
}

impl<F: Fn(usize) -> Writer> Search<'_, F> {
    fn event_at(&self, t: usize) -> Option<usize> {
        (self.pos[t] < self.want[t]).then(|| self.trace.by_thread[t][self.pos[t]])
    }

    fn can_place(&self, t: usize) -> bool {
        let Some(p) = self.event_at(t) else {
            return false;
        };
        let tr = self.trace;
        let e = &tr.events[p];
        if self.pos[t] == 0 && tr.started_by[t].is_some_and(|s| !self.placed[s]) {
            return false;
        }
        if tr.ordered_rank[p] != usize::MAX && tr.ordered_rank[p] != self.ordered_next {
            return false;
        }
        if tr.joined_end[p].is_some_and(|q| !self.placed[q]) {
            return false;
        }
        let current = self.last.get(&e.target).copied().flatten();
        match e.kind {
            OpKind::Read => (self.needs)(p) == current,
            OpKind::Write => self
                .pending
                .get(&(e.target, current))
                .is_none_or(|&n| n == 0),
            OpKind::MonitorEnter => self.owner.get(&e.target).is_none_or(|o| o.0 == e.thread),
            OpKind::WaitReturn => !self.owner.contains_key(&e.target),
            _ => true,
        }
    }

    fn place(&mut self, t: usize) -> Undo {
        let p = self.trace.by_thread[t][self.pos[t]];
        let e = self.trace.events[p];
        let mut undo = Undo {
            thread: t,
            position: p,
            last: None,
            owner: None,
            saved: None,
            ordered: false,
        };
        match e.kind {
            OpKind::Read => {
                let key = (e.target, (self.needs)(p));
                if let Some(n) = self.pending.get_mut(&key) {
                    *n -= 1;
                }
            }
            OpKind::Write => {
                undo.last = Some((e.target, self.last.insert(e.target, Some(p))));
            }
            OpKind::MonitorEnter => {
                let before = self.owner.get(&e.target).copied();
                let count = before.map_or(0, |o| o.1) + 1;
                self.owner.insert(e.target, (e.thread, count));
                undo.owner = Some((e.target, before));
            }
            OpKind::MonitorExit => {
                let before = self.owner.get(&e.target).copied();
                match before {
                    Some((o, c)) if c > 1 => {
                        self.owner.insert(e.target, (o, c - 1));
                    }
                    _ => {
                        self.owner.remove(&e.target);
                    }
                }
                undo.owner = Some((e.target, before));
            }
            OpKind::Wait => {
                let before = self.owner.remove(&e.target);
                undo.owner = Some((e.target, before));
                let count = before.map_or(1, |o| o.1);
                undo.saved = Some(self.saved.insert(t, (e.target, count)));
            }
            OpKind::WaitReturn => {
                let count = self.saved.get(&t).map_or(1, |s| s.1);
                undo.owner = Some((e.target, self.owner.insert(e.target, (e.thread, count))));
                undo.saved = Some(self.saved.remove(&t));
            }
            _ => {}
        }
        if self.trace.ordered_rank[p] != usize::MAX {
            self.ordered_next += 1;
            undo.ordered = true;
        }
        self.pos[t] += 1;
        self.placed[p] = true;
        undo
    }

    fn unplace(&mut self, u: Undo) {
        let e = self.trace.events[u.position];
        self.pos[u.thread] -= 1;
        self.placed[u.position] = false;
        if u.ordered {
            self.ordered_next -= 1;
        }
        if e.kind == OpKind::Read {
            let key = (e.target, (self.needs)(u.position));
            if let Some(n) = self.pending.get_mut(&key) {
                *n += 1;
            }
        }
        if let Some((loc, before)) = u.last {
            match before {
                Some(w) => self.last.insert(loc, w),
                None => self.last.remove(&loc),
            };
        }
        if let Some((obj, before)) = u.owner {
            match before {
                Some(o) => self.owner.insert(obj, o),
                None => self.owner.remove(&obj),
            };
        }
        if let Some(before) = u.saved {
            match before {
                Some(s) => self.saved.insert(u.thread, s),
                None => self.saved.remove(&u.thread),
            };
        }
    }

    fn state_hash(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.pos.hash(&mut h);
        self.last.hash(&mut h);
        self.owner.hash(&mut h);
        self.saved.hash(&mut h);
        h.finish()
    }

    /// Threads that can place their next event, in the recorded order of those events.
    fn options(&self) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.pos.len()).filter(|&t| self.can_place(t)).collect();
        v.sort_by_key(|&t| self.trace.by_thread[t][self.pos[t]]);
        v
    }
}

/// Searches an order of the prefix holding `want[t]` events of each thread `t` in which every
/// read `p` of it sees `needs(p)`, visiting at most `max_nodes` states. Returns the answer and
/// the states visited.
pub fn solve(
    trace: &Trace,
    want: &[usize],
    needs: impl Fn(usize) -> Writer,
    max_nodes: u64,
) -> (Solved, u64) {
    let mut pending: HashMap<(u64, Writer), u32> = HashMap::new();
    for (t, &n) in want.iter().enumerate() {
        for &p in &trace.by_thread[t][..n] {
            if trace.is_read(p) {
                *pending
                    .entry((trace.events[p].target, needs(p)))
                    .or_default() += 1;
            }
        }
    }
    let total: usize = want.iter().sum();
    let mut s = Search {
        trace,
        needs,
        want,
        pos: vec![0; want.len()],
        placed: vec![false; trace.len()],
        last: BTreeMap::new(),
        pending,
        owner: BTreeMap::new(),
        saved: BTreeMap::new(),
        ordered_next: 0,
    };
    let mut failed: HashSet<u64> = HashSet::new();
    let mut order: Vec<usize> = Vec::with_capacity(total);
    let mut stack = vec![Frame {
        options: s.options(),
        next: 0,
        hash: s.state_hash(),
        applied: None,
    }];
    let mut nodes = 1u64;
    loop {
        if order.len() == total {
            return (Solved::Order(order), nodes);
        }
        let Some(top) = stack.last_mut() else {
            return (Solved::Infeasible, nodes);
        };
        if let Some(u) = top.applied.take() {
            s.unplace(u);
            order.pop();
        }
        if top.next >= top.options.len() {
            failed.insert(top.hash);
            stack.pop();
            continue;
        }
        if nodes >= max_nodes {
            return (Solved::Cut, nodes);
        }
        let t = top.options[top.next];
        top.next += 1;
        let u = s.place(t);
        order.push(u.position);
        top.applied = Some(u);
        let hash = s.state_hash();
        if failed.contains(&hash) {
            continue;
        }
        nodes += 1;
        stack.push(Frame {
            options: s.options(),
            next: 0,
            hash,
            applied: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::trace::ev;
    use super::*;
    use crate::events::Event;

    /// Two threads started by main: 1 writes x then reads y; 2 writes y then reads x
    /// (store buffering), recorded with thread 1 first.
    fn store_buffering() -> Trace {
        Trace::new(&[
            ev(0, OpKind::Begin, 0, 0),
            ev(0, OpKind::Start, 1, 1),
            ev(0, OpKind::Start, 2, 2),
            ev(1, OpKind::Begin, 1, 0),
            ev(1, OpKind::Write, 10, 1),
            ev(1, OpKind::Read, 11, 2),
            ev(2, OpKind::Begin, 2, 0),
            ev(2, OpKind::Write, 11, 1),
            ev(2, OpKind::Read, 10, 2),
        ])
    }

    fn check(trace: &Trace, order: &[usize], needs: impl Fn(usize) -> Writer) {
        let mut last: HashMap<u64, usize> = HashMap::new();
        for &p in order {
            let e = trace.events[p];
            match e.kind {
                OpKind::Read => assert_eq!(last.get(&e.target).copied(), needs(p), "{p}"),
                OpKind::Write => {
                    last.insert(e.target, p);
                }
                _ => {}
            }
        }
    }

    #[test]
    fn a_read_is_moved_after_the_write_it_must_see() {
        let t = store_buffering();
        // Thread 1's read of y must see thread 2's write; thread 2's read keeps seeing x's write.
        let needs = |p: usize| if p == 5 { Some(7) } else { t.saw[p] };
        let want = t.closure(&[5], needs);
        let (answer, _) = solve(&t, &want, needs, 1_000);
        let Solved::Order(order) = answer else {
            panic!("{answer:?}")
        };
        check(&t, &order, needs);
        assert!(order.contains(&5) && order.contains(&7));
    }

    #[test]
    fn an_impossible_pair_of_reads_is_infeasible_and_the_bound_cuts() {
        let t = store_buffering();
        // Both reads see the initial value: the outcome of store buffering that sequential
        // consistency forbids.
        let needs = |p: usize| if p == 5 || p == 8 { None } else { t.saw[p] };
        let want = t.closure(&[5, 8], needs);
        assert_eq!(solve(&t, &want, needs, 10_000).0, Solved::Infeasible);
        assert_eq!(solve(&t, &want, needs, 2).0, Solved::Cut);
    }

    #[test]
    fn monitors_exclude_each_other() {
        // Thread 1 and 2 each: enter m, write x, read x, exit m. Recorded 1 then 2. Thread 2's
        // read seeing thread 1's write inside 2's own critical section is impossible.
        let t = Trace::new(&[
            ev(0, OpKind::Begin, 0, 0),
            ev(0, OpKind::Start, 1, 1),
            ev(0, OpKind::Start, 2, 2),
            ev(1, OpKind::Begin, 1, 0),
            ev(1, OpKind::MonitorEnter, 5, 1),
            ev(1, OpKind::Write, 10, 2),
            ev(1, OpKind::Read, 10, 3),
            ev(1, OpKind::MonitorExit, 5, 4),
            ev(2, OpKind::Begin, 2, 0),
            ev(2, OpKind::MonitorEnter, 5, 1),
            ev(2, OpKind::Write, 10, 2),
            ev(2, OpKind::Read, 10, 3),
            ev(2, OpKind::MonitorExit, 5, 4),
        ]);
        let needs = |p: usize| if p == 11 { Some(5) } else { t.saw[p] };
        let want = t.closure(&[11], needs);
        assert_eq!(solve(&t, &want, needs, 10_000).0, Solved::Infeasible);
        // Without the monitors the same read order is possible.
        let plain: Vec<Event> = t
            .events
            .iter()
            .filter(|e| !matches!(e.kind, OpKind::MonitorEnter | OpKind::MonitorExit))
            .copied()
            .collect();
        let t2 = Trace::new(&plain);
        let r = t2
            .events
            .iter()
            .rposition(|e| e.kind == OpKind::Read)
            .unwrap();
        let w = t2
            .events
            .iter()
            .position(|e| e.kind == OpKind::Write)
            .unwrap();
        let needs2 = |p: usize| if p == r { Some(w) } else { t2.saw[p] };
        let want2 = t2.closure(&[r], needs2);
        assert!(matches!(
            solve(&t2, &want2, needs2, 10_000).0,
            Solved::Order(_)
        ));
    }
}
