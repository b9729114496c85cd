//! Happens-before: vector clocks, the HB graph, and a canonical hash of it.
//!
//! Nodes are executed events; edges are program order, and between events of different threads
//! on the same key where at least one writes (RankChecker §5, CHESS). Synchronization operations
//! count as writes on their monitor / thread / permit key, which gives the synchronization order
//! on the same object. Two schedules with the same HB graph reach the same state, so exhaustive
//! strategies prune schedules whose graph (or whose prefix graph, for a whole subtree) was seen.
//!
//! **Canonical hash.** An event is identified by `(thread, index in its thread)`. Its vector clock
//! counts, for every thread, how many of that thread's events happen before it (itself
//! included), which is exactly its set of HB predecessors. Two interleavings have the same HB graph
//! iff every event has the same label and the same clock, so the hash of a prefix is a
//! commutative sum over its events of `mix(thread, index, label, clock)`: independent of the
//! interleaving, incremental, and the same for every prefix that executed the same event set.

use crate::events::Event;
use crate::ids::{ThreadId, VarId};
use crate::op::{Op, OpKind};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::HashMap;

/// A conflict key: a memory location, a monitor, a thread's lifecycle, a park permit…
pub type Key = u64;

/// The keys one event touches: none, one, or two (a thread's end writes its lifecycle key and,
/// when it woke the waiters of its own `Thread` object, that monitor's key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touches {
    keys: [(Key, Mode); 2],
    len: u8,
}

impl Touches {
    const NONE: Touches = Touches {
        keys: [(0, Mode::Read); 2],
        len: 0,
    };

    fn one(key: Key, mode: Mode) -> Touches {
        Touches::NONE.and(key, mode)
    }

    fn and(mut self, key: Key, mode: Mode) -> Touches {
        self.keys[usize::from(self.len)] = (key, mode);
        self.len += 1;
        self
    }

    pub fn as_slice(&self) -> &[(Key, Mode)] {
        &self.keys[..usize::from(self.len)]
    }
}

/// How an event touches a key. Reads of the same key commute; everything else conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Read,
    Write,
}

/// A vector clock: entry `u` = number of events of thread `u` that happen before (or are) this.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct VectorClock(Vec<u32>);

impl VectorClock {
    pub fn get(&self, thread: usize) -> u32 {
        self.0.get(thread).copied().unwrap_or(0)
    }

    fn set(&mut self, thread: usize, value: u32) {
        if self.0.len() <= thread {
            self.0.resize(thread + 1, 0);
        }
        self.0[thread] = value;
    }

    /// Pointwise maximum.
    pub fn join(&mut self, other: &VectorClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(b);
        }
    }

    /// `self ≤ other` pointwise: the event with clock `self` happens before (or is) `other`'s.
    pub fn le(&self, other: &VectorClock) -> bool {
        self.0.iter().enumerate().all(|(u, &a)| a <= other.get(u))
    }

    /// Entries without trailing zeros (so equal clocks compare and hash equal).
    pub fn entries(&self) -> &[u32] {
        let mut len = self.0.len();
        while len > 0 && self.0[len - 1] == 0 {
            len -= 1;
        }
        &self.0[..len]
    }
}

/// One executed event, as kept for the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HbEvent {
    pub thread: u32,
    pub index: u32,
    pub label: u64,
    pub clock: VectorClock,
}

#[derive(Default)]
struct KeyState {
    /// Clock, event id and thread of the last write.
    last_write: Option<(VectorClock, usize, u32)>,
    reads_since_write: VectorClock,
    /// `(event id, thread)` of those reads (kept only for the graph).
    read_events_since_write: Vec<(usize, u32)>,
}

/// Incremental happens-before tracking for one execution.
///
/// [`HbTracker::new`] keeps only what the hash needs (one clock per thread and per key);
/// [`HbTracker::with_graph`] also keeps every event and edge, for [`HbTracker::graph`].
#[derive(Default)]
pub struct HbTracker {
    thread_clocks: Vec<VectorClock>,
    keys: HashMap<Key, KeyState>,
    keep_graph: bool,
    events: Vec<HbEvent>,
    edges: Vec<(usize, usize)>,
    last_of_thread: Vec<Option<usize>>,
    recorded: usize,
    hash: u64,
    consumed: usize,
}

impl HbTracker {
    /// A tracker for hashes only (memory per thread and per key, not per event).
    pub fn new() -> Self {
        Self::default()
    }

    /// A tracker that also keeps the graph.
    pub fn with_graph() -> Self {
        HbTracker {
            keep_graph: true,
            ..Self::default()
        }
    }

    /// Records that `thread` performed an event with `label` (a hash of its operation) touching
    /// `touches`; returns the event's clock.
    pub fn record(&mut self, thread: u32, label: u64, touches: &[(Key, Mode)]) -> &VectorClock {
        let t = thread as usize;
        if self.thread_clocks.len() <= t {
            self.thread_clocks.resize(t + 1, VectorClock::default());
            self.last_of_thread.resize(t + 1, None);
        }
        let id = self.recorded;
        self.recorded += 1;
        let graph = self.keep_graph;
        let mut clock = self.thread_clocks[t].clone();
        if let (true, Some(prev)) = (graph, self.last_of_thread[t]) {
            self.edges.push((prev, id));
        }
        for &(key, mode) in touches {
            let state = self.keys.entry(key).or_default();
            if let Some((write_clock, write_event, writer)) = &state.last_write {
                clock.join(write_clock);
                if graph && *writer != thread {
                    self.edges.push((*write_event, id));
                }
            }
            if mode == Mode::Write {
                clock.join(&state.reads_since_write);
                if graph {
                    for &(r, reader) in &state.read_events_since_write {
                        if reader != thread {
                            self.edges.push((r, id));
                        }
                    }
                }
            }
        }
        let index = self.thread_clocks[t].get(t);
        clock.set(t, index + 1);
        for &(key, mode) in touches {
            let state = self.keys.get_mut(&key).expect("inserted above");
            match mode {
                Mode::Read => {
                    state.reads_since_write.join(&clock);
                    if graph {
                        state.read_events_since_write.push((id, thread));
                    }
                }
                Mode::Write => {
                    state.last_write = Some((clock.clone(), id, thread));
                    state.reads_since_write = VectorClock::default();
                    state.read_events_since_write.clear();
                }
            }
        }
        self.hash = self
            .hash
            .wrapping_add(event_hash(thread, index, label, &clock));
        if graph {
            self.last_of_thread[t] = Some(id);
            self.events.push(HbEvent {
                thread,
                index,
                label,
                clock: clock.clone(),
            });
        }
        self.thread_clocks[t] = clock;
        &self.thread_clocks[t]
    }

    /// Canonical hash of the HB graph of everything recorded so far.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash the graph would have after one more event; does not record it. Used to decide
    /// whether an alternative step leads somewhere already explored without running it.
    pub fn hash_after(&self, thread: u32, label: u64, touches: &[(Key, Mode)]) -> u64 {
        let t = thread as usize;
        let mut clock = self.thread_clocks.get(t).cloned().unwrap_or_default();
        for &(key, mode) in touches {
            if let Some(state) = self.keys.get(&key) {
                if let Some((write_clock, _, _)) = &state.last_write {
                    clock.join(write_clock);
                }
                if mode == Mode::Write {
                    clock.join(&state.reads_since_write);
                }
            }
        }
        let index = self.thread_clocks.get(t).map_or(0, |c| c.get(t));
        clock.set(t, index + 1);
        self.hash
            .wrapping_add(event_hash(thread, index, label, &clock))
    }

    /// Records every event of `log` not seen yet (the log of the current execution grows by
    /// appending; call [`HbTracker::reset`] between executions).
    pub fn sync(&mut self, log: &[Event]) {
        while self.consumed < log.len() {
            let e = log[self.consumed];
            self.consumed += 1;
            let (label, touch) = event_touches(&e);
            self.record(e.thread.0, label, touch.as_slice());
        }
    }

    /// The hash after one more performed event `e` (see [`HbTracker::hash_after`]).
    pub fn hash_after_event(&self, e: &Event) -> u64 {
        let (label, touch) = event_touches(e);
        self.hash_after(e.thread.0, label, touch.as_slice())
    }

    /// Records that a `notify` on the monitor of `e`'s object woke `waiter` (see [`WOKEN_LABEL`]).
    pub fn record_woken(&mut self, waiter: ThreadId, obj: u64) {
        self.record(waiter.0, WOKEN_LABEL, &[(monitor_key(obj), Mode::Write)]);
    }

    /// Forgets everything (keeping the graph setting): a new execution starts.
    pub fn reset(&mut self) {
        *self = HbTracker {
            keep_graph: self.keep_graph,
            ..HbTracker::default()
        };
    }

    /// Number of events of `thread` recorded so far.
    pub fn thread_events(&self, thread: ThreadId) -> u32 {
        self.thread_clocks
            .get(thread.index())
            .map_or(0, |c| c.get(thread.index()))
    }

    /// Every event recorded, in execution order (empty unless made [`HbTracker::with_graph`]).
    pub fn events(&self) -> &[HbEvent] {
        &self.events
    }

    /// Current clock of `thread` (its last event's clock).
    pub fn thread_clock(&self, thread: u32) -> VectorClock {
        self.thread_clocks
            .get(thread as usize)
            .cloned()
            .unwrap_or_default()
    }

    /// The HB graph as a petgraph graph: program-order edges and conflict edges (from the last
    /// conflicting events of other threads; transitive ones are implied). Empty unless the
    /// tracker was made [`HbTracker::with_graph`].
    pub fn graph(&self) -> DiGraph<HbEvent, ()> {
        let mut g = DiGraph::with_capacity(self.events.len(), self.edges.len());
        for e in &self.events {
            g.add_node(e.clone());
        }
        for &(a, b) in &self.edges {
            g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        }
        g
    }
}

/// How a performed [`Event`] enters the HB graph: its label and the keys it touches.
///
/// Accesses touch their location (read or write). Monitor, wait and notify operations write
/// their object (synchronization order per monitor). `Start`, `Begin`, `End` and `Join` write the
/// lifecycle key of the thread concerned (so start → begin and end → join are edges); interrupts
/// and interrupt queries write the target's interrupt-flag key; park/unpark the target's permit
/// key; `Exit` a global key; a thread-status query reads the target's lifecycle key; a class
/// initialization's begin and a wait for one a global key of their own.
/// `Sleep`/`Yield`/`LiveThreads` touch nothing. An `End` that woke the waiters of its thread's
/// `Thread` object also writes that monitor. A thread query's label holds its answer
/// ([`Event::var`]), so prefixes whose queries saw different states never share a hash. Treating a sync operation as a write
/// over-approximates dependence, which can only make pruning prune less, never wrongly.
pub fn event_touches(e: &Event) -> (u64, Touches) {
    const LOC: u64 = 1;
    const MONITOR: u64 = 2;
    const LIFECYCLE: u64 = 3;
    const INTERRUPT: u64 = 4;
    const PERMIT: u64 = 5;
    const EXIT: u64 = 6;
    const CLASS_INIT: u64 = 7;
    let label = mix_all([e.kind as u64, e.target, u64::from(e.var.0), e.site as u64]);
    let key = |space: u64| key_in(space, e.target);
    let touch = match e.kind {
        OpKind::Read => Touches::one(key(LOC), Mode::Read),
        OpKind::Write => Touches::one(key(LOC), Mode::Write),
        OpKind::MonitorEnter
        | OpKind::MonitorExit
        | OpKind::Wait
        | OpKind::WaitReturn
        | OpKind::Notify
        | OpKind::NotifyAll => Touches::one(key(MONITOR), Mode::Write),
        // An end that woke its `Thread` object's waiters names that object (see `Event::var`).
        OpKind::End if e.var != VarId::UNKNOWN => Touches::one(key(LIFECYCLE), Mode::Write)
            .and(key_in(MONITOR, u64::from(e.var.0)), Mode::Write),
        OpKind::Start | OpKind::Begin | OpKind::End | OpKind::Join => {
            Touches::one(key(LIFECYCLE), Mode::Write)
        }
        // `isAlive()` seeing the end is an edge (JLS 17.4.4, like `join`); two queries commute.
        OpKind::ThreadStatus => Touches::one(key(LIFECYCLE), Mode::Read),
        OpKind::Interrupt | OpKind::Interrupted | OpKind::IsInterrupted => {
            Touches::one(key(INTERRUPT), Mode::Write)
        }
        OpKind::Park | OpKind::Unpark => Touches::one(key(PERMIT), Mode::Write),
        OpKind::Exit => Touches::one(key_in(EXIT, 0), Mode::Write),
        // Which class a wait is for is not known: every initialization conflicts with every
        // other and with every wait for one (an over-approximation, as for sync operations).
        OpKind::ClassInit | OpKind::ClassInitWait => {
            Touches::one(key_in(CLASS_INIT, 0), Mode::Write)
        }
        // `activeCount()` orders nothing (the JLS gives it no edge); its label holds its answer.
        OpKind::Sleep | OpKind::Yield | OpKind::LiveThreads => Touches::NONE,
    };
    (label, touch)
}

/// The key of `value` in key space `space` (a full hash: keys of different spaces never collide
/// by construction of small numbers).
fn key_in(space: u64, value: u64) -> Key {
    mix_all([space, value])
}

/// The key of a monitor (what monitor, wait and notify operations on `obj` touch).
pub fn monitor_key(obj: u64) -> Key {
    key_in(2, obj)
}

/// The event `thread` would produce by performing `op` now, given how many events it performed
/// so far (`index`) and how many threads exist (`threads`: the id a `Start` would give its child).
pub fn pending_event(thread: ThreadId, op: &Op, index: u32, threads: u32) -> Event {
    Event::new(thread, op, index, Some(ThreadId(threads)))
}

/// Whether what `first` did between its events before position `since` of `log` and its next
/// one happens before `reader`'s latest event: `first`'s next event after `since` (which
/// follows that stretch in program order) happens before it. False when `first` has performed
/// no event since.
pub fn stretch_happens_before(
    log: &[Event],
    first: ThreadId,
    since: usize,
    reader: ThreadId,
) -> bool {
    let done = log[..since.min(log.len())]
        .iter()
        .filter(|e| e.thread == first)
        .count() as u32;
    let mut hb = HbTracker::new();
    hb.sync(log);
    hb.thread_clock(reader.0).get(first.index()) > done
}

/// Label of the pseudo-event "a `notify` woke this waiter", recorded in the woken thread so that
/// the choice of waiter is part of the graph from the moment it is made.
pub const WOKEN_LABEL: u64 = 0x776f_6b65_6e00_0001;

impl std::fmt::Debug for HbTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HbTracker({} events, hash {:016x})",
            self.events.len(),
            self.hash
        )
    }
}

/// Stable 64-bit mixing (splitmix64 finaliser), so hashes persist across processes and builds.
pub fn mix(h: u64, word: u64) -> u64 {
    crate::mix64(h ^ word.wrapping_add(crate::GOLDEN_GAMMA))
}

/// Folds words into one stable hash.
pub fn mix_all(words: impl IntoIterator<Item = u64>) -> u64 {
    words.into_iter().fold(0x243f_6a88_85a3_08d3, mix)
}

fn event_hash(thread: u32, index: u32, label: u64, clock: &VectorClock) -> u64 {
    let head = [u64::from(thread), u64::from(index), label];
    mix_all(
        head.into_iter()
            .chain(clock.entries().iter().map(|&c| u64::from(c))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes persist across processes and builds: these values never change.
    #[test]
    fn mixing_keeps_its_values() {
        assert_eq!(mix(1, 2), 0x910a_2dec_8902_5cc1);
        assert_eq!(mix_all([7]), 0x880f_e47c_0ae2_2e1b);
    }

    const X: Key = 1;
    const Y: Key = 2;

    #[test]
    fn a_stretch_happens_before_what_acquires_the_next_release() {
        use crate::ids::{Loc, ObjId, VarId};
        let (a, b) = (ThreadId(0), ThreadId(1));
        let enter = |t, i| {
            Event::new(
                t,
                &Op::MonitorEnter {
                    obj: ObjId(7),
                    site: 1,
                },
                i,
                None,
            )
        };
        let exit = |t, i| {
            Event::new(
                t,
                &Op::MonitorExit {
                    obj: ObjId(7),
                    site: 2,
                },
                i,
                None,
            )
        };
        let touch = |t, i| {
            let op = Op::Access {
                loc: Loc(9),
                var: VarId::UNKNOWN,
                write: true,
                site: 3,
            };
            Event::new(t, &op, i, None)
        };
        // a's stretch lies between its enter (position 0) and its exit; b then enters.
        let guarded = [enter(a, 0), exit(a, 1), enter(b, 0)];
        assert!(stretch_happens_before(&guarded, a, 1, b));
        // b enters first, then a: a's stretch after its enter is not ordered before b.
        let unguarded = [enter(b, 0), exit(b, 1), enter(a, 0)];
        assert!(!stretch_happens_before(&unguarded, a, 3, b));
        // Unrelated events order nothing.
        let apart = [touch(a, 0), enter(b, 0)];
        assert!(!stretch_happens_before(&apart, a, 0, b));
    }

    fn run(steps: &[(u32, u64, Key, Mode)]) -> HbTracker {
        let mut hb = HbTracker::with_graph();
        for &(t, label, key, mode) in steps {
            hb.record(t, label, &[(key, mode)]);
        }
        hb
    }

    #[test]
    fn independent_events_commute() {
        let a = run(&[(0, 1, X, Mode::Write), (1, 2, Y, Mode::Write)]);
        let b = run(&[(1, 2, Y, Mode::Write), (0, 1, X, Mode::Write)]);
        assert_eq!(a.hash(), b.hash());
    }

    #[test]
    fn reads_commute_but_writes_do_not() {
        let r1 = run(&[(0, 1, X, Mode::Read), (1, 2, X, Mode::Read)]);
        let r2 = run(&[(1, 2, X, Mode::Read), (0, 1, X, Mode::Read)]);
        assert_eq!(r1.hash(), r2.hash());
        let w1 = run(&[(0, 1, X, Mode::Write), (1, 2, X, Mode::Read)]);
        let w2 = run(&[(1, 2, X, Mode::Read), (0, 1, X, Mode::Write)]);
        assert_ne!(w1.hash(), w2.hash());
    }

    #[test]
    fn clocks_are_transitive() {
        let hb = run(&[
            (0, 1, X, Mode::Write),
            (1, 2, X, Mode::Read),
            (1, 3, Y, Mode::Write),
            (2, 4, Y, Mode::Read),
        ]);
        let last = &hb.events()[3].clock;
        assert_eq!(
            last.get(0),
            1,
            "thread 0's write reaches thread 2 through thread 1"
        );
        assert_eq!(last.get(1), 2);
        assert!(hb.events()[0].clock.le(last));
    }

    #[test]
    fn hash_after_predicts_record() {
        let mut hb = run(&[(0, 1, X, Mode::Write), (1, 2, X, Mode::Read)]);
        let predicted = hb.hash_after(0, 5, &[(X, Mode::Write)]);
        hb.record(0, 5, &[(X, Mode::Write)]);
        assert_eq!(predicted, hb.hash());
    }

    #[test]
    fn graph_has_program_order_and_conflict_edges() {
        let hb = run(&[
            (0, 1, X, Mode::Write),
            (1, 2, Y, Mode::Write),
            (1, 3, X, Mode::Read),
        ]);
        let g = hb.graph();
        assert_eq!(g.node_count(), 3);
        // po: 1→2; conflict: 0→2.
        assert_eq!(g.edge_count(), 2);
        assert!(g.contains_edge(NodeIndex::new(0), NodeIndex::new(2)));
        assert!(g.contains_edge(NodeIndex::new(1), NodeIndex::new(2)));
    }
}
