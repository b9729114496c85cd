//! MCR — maximal causality reduction (Huang, PLDI 2015; the MCR part of Yi and Huang, FSE
//! 2018), over reads-from: from each recorded trace, a solver derives one schedule prefix per
//! read and per write it could see instead, so every execution runs a reads-from combination
//! (which write each read saw) that no earlier execution ran.
//!
//! - **Worklist.** Each item is a prefix to enforce: a sequence of events named by thread and
//!   rank among the thread's logged events. The first execution enforces nothing. After the prefix the execution
//!   continues without preemptions (as `nonpreemptive`).
//! - **New items.** For every read past the enforced prefix of a finished execution, and every
//!   write to its location in the trace (or the initial value) it did not see, the solver
//!   ([`solver`]) looks for an order of a prefix that holds the enforced prefix, the read and
//!   the chosen write, with everything they must come after ([`Trace::closure`]) and the rest
//!   of any critical section another thread is left in ([`Trace::releases`]), in which the read
//!   sees the chosen write and every other read sees what it saw (so control flow up to the
//!   read is unchanged). An item's descendants keep its constraints; a prefix whose constraints
//!   (each read of it and the write it must see) were queued before is not queued again.
//! - **End.** When the worklist is empty every reads-from combination reachable under this
//!   input ran (in the simulator's tests: exactly the set brute force finds), unless the
//!   solver's node bound cut a prefix or an execution left its prefix; the coverage statement
//!   says which. A combination can run twice when two sibling items leave each other's reads
//!   free and their free continuations meet (the tests measure it: 19 executions for 12
//!   combinations of a three-thread program, none on 40 random ones); the optimal
//!   bookkeeping that rules this out is not done here.
//!
//! - **Parts** ([`Mcr::with_partition`], `--shard I/N`): every part runs the first execution;
//!   the `k`-th prefix it queues, with everything descending from it, is part `k mod N`'s
//!   ([`Partition`]). Each execution carries its place in the unpartitioned search's
//!   breadth-first order ([`child_key`]), by which a merge of the parts sorts them. A part
//!   keeps the constraints of every prefix the first execution queued (their owners run them),
//!   but not those the other parts queue further down, so with deduplication the parts may run
//!   a combination more than once between them; without it (`dedup` off, `--no-prune`) they
//!   run exactly the unpartitioned search's prefixes.
//!
//! What is left (the refinement): MCR proper merges writes of the same value (two writes
//! of 1 are one choice for a read); the JVM side does not report values, so here every write is
//! its own choice. The recorded order of wait/notify, park/unpark and interrupt events is kept
//! (their pairing is not in the event log), and a `notify` wakes the longest waiter.

mod solver;
#[cfg(test)]
mod tests;
mod trace;

pub use solver::{solve, Solved};
pub use trace::{Trace, Writer};

use super::api::{ExecutionSummary, Pick, Strategy, View};
use super::nonpreemptive::NonPreemptive;
use super::partition::Partition;
use crate::coverage::Shortfall;
use crate::events::Event;
use crate::ids::ThreadId;
use crate::op::OpKind;
use std::collections::{HashSet, VecDeque};

/// Default bound on the solver's work per prefix (states visited).
pub const DEFAULT_MAX_NODES: u64 = 20_000;

/// Longest stretch of a trace past its enforced prefix that MCR derives alternatives from. A
/// longer execution (a hot loop's hundreds of thousands of accesses) is run but not expanded:
/// the search goes on with what else it has and its statement says what it left out, rather
/// than spending minutes (every read against every write) between two executions.
pub const MAX_EXPANDED_EVENTS: usize = 20_000;

/// Most prefixes one execution's expansion hands to the solver; the rest of its alternatives
/// are left out, and said to be.
pub const MAX_SOLVED_PER_EXECUTION: u64 = 5_000;

/// Most work one execution's expansion may do, in units of one event of the trace looked at
/// per prefix plus one thread per solver state (what a prefix's closure and a state's options
/// cost): with a thousand threads, a few thousand prefixes of full solver depth would
/// otherwise take minutes.
pub const MAX_WORK_PER_EXECUTION: u64 = 100_000_000;

/// A run of consecutive events of one thread: (thread, rank of the first among the thread's
/// logged events, how many). Ranks, not occurrence indices: steps that pass without an event
/// (a static initializer's accesses, the JDK's first-time work) count in the index and differ
/// from one execution to the next in the same JVM.
type Run = (ThreadId, u32, u32);

/// A reads-from pair that compares across executions: the read (thread, rank among the
/// thread's events, location) and the write it saw (thread, rank), `None` for the initial value.
pub type RfPair = ((u32, u32, u64), Option<(u32, u32)>);

/// The reads-from pair of the read at `p` seeing `writer`, events named by thread and rank.
fn pair(trace: &Trace, p: usize, writer: Writer) -> RfPair {
    let name = |q: usize| (trace.events[q].thread.0, trace.rank[q] as u32);
    let (thread, rank) = name(p);
    ((thread, rank, trace.events[p].target), writer.map(name))
}

/// Every reads-from pair of one execution, in trace order.
pub fn reads_from(events: &[Event]) -> Vec<RfPair> {
    let trace = Trace::new(events);
    (0..trace.len())
        .filter(|&p| trace.is_read(p))
        .map(|p| pair(&trace, p, trace.saw[p]))
        .collect()
}

/// The order key of the `j`-th prefix an execution with key `parent` queued: the search is
/// breadth first (a FIFO worklist), so a key is the depth followed by the push index of every
/// ancestor, and keys of one depth sort as their parents ran, then by push index. The first
/// execution's key is `[0]`.
pub fn child_key(parent: &[u64], j: u64) -> Vec<u64> {
    let mut key = Vec::with_capacity(parent.len() + 1);
    key.push(parent.first().map_or(1, |depth| depth + 1));
    key.extend(parent.iter().skip(1));
    key.push(j);
    key
}

/// A prefix to enforce, and where it falls in the search.
#[derive(Clone, Debug, Default)]
struct Item {
    prefix: Vec<Run>,
    /// Partitioned: the first execution's item this one descends from (its part's cell);
    /// `None` for the first execution.
    cell: Option<u64>,
    /// Partitioned: its place in the unpartitioned search's order ([`child_key`]); empty
    /// otherwise.
    key: Vec<u64>,
}

/// Maximal causality reduction over reads-from.
#[derive(Debug)]
pub struct Mcr {
    max_nodes: u64,
    /// Skip a prefix whose constraints were queued before.
    dedup: bool,
    partition: Option<Partition>,
    worklist: VecDeque<Item>,
    done: bool,
    // This execution.
    active: Item,
    /// Prefixes this execution's expansion solved so far (numbered whether this part keeps
    /// them or not).
    solved_here: u64,
    /// The key of the execution that ended last (partitioned only).
    last_key: Option<Vec<u64>>,
    /// What the execution that ended last leaves out of the claim.
    last_shortfall: Shortfall,
    /// Position in `prefix`: (run, offset within it).
    cursor: (usize, u32),
    /// How many events each thread performed in this execution (the rank of its next one).
    next_index: Vec<u32>,
    absorbed: usize,
    diverged: bool,
    free: NonPreemptive,
    // Statistics.
    executions: u64,
    solved: u64,
    infeasible: u64,
    cut: u64,
    divergences: u64,
    nodes: u64,
    pairs: HashSet<RfPair>,
    /// The constraints of every prefix queued so far.
    queued: HashSet<Vec<RfPair>>,
    /// Prefixes not queued because one with the same constraints was.
    repeated: u64,
    /// Executions whose alternatives were not (all) derived: too long, or too many
    /// alternatives ([`MAX_EXPANDED_EVENTS`], [`MAX_SOLVED_PER_EXECUTION`]).
    unexpanded: u64,
    /// Prefixes handed to the solver by the running expansion, and its work so far
    /// ([`MAX_WORK_PER_EXECUTION`]).
    solving_here: u64,
    work_here: u64,
    ordered_seen: bool,
}

impl Mcr {
    /// A search whose solver visits at most `max_nodes` states per prefix; `dedup`: a prefix
    /// whose reads-from constraints were queued before is not queued again.
    pub fn new(max_nodes: u64, dedup: bool) -> Mcr {
        Mcr {
            max_nodes,
            dedup,
            partition: None,
            worklist: VecDeque::new(),
            done: false,
            active: Item::default(),
            solved_here: 0,
            last_key: None,
            last_shortfall: Shortfall::default(),
            cursor: (0, 0),
            next_index: Vec::new(),
            absorbed: 0,
            diverged: false,
            free: NonPreemptive::new(),
            executions: 0,
            solved: 0,
            infeasible: 0,
            cut: 0,
            divergences: 0,
            nodes: 0,
            pairs: HashSet::new(),
            queued: HashSet::new(),
            repeated: 0,
            unexpanded: 0,
            solving_here: 0,
            work_here: 0,
            ordered_seen: false,
        }
    }

    /// This search restricted to `partition` (see the module doc); `None` runs all of it.
    pub fn with_partition(mut self, partition: Option<Partition>) -> Mcr {
        self.partition = partition;
        if partition.is_some() {
            self.active.key = vec![0];
        }
        self
    }

    /// Whether the worklist ran empty: nothing is left to run. What the search then claims
    /// also depends on what its executions left out ([`Mcr::last_shortfall`], [`Mcr::coverage`]):
    /// prefixes the solver's bound cut, and events whose order MCR keeps as recorded
    /// (wait/notify, park/unpark, interrupts).
    pub fn exhausted(&self) -> bool {
        self.done
    }

    /// Whether everything the search claims is covered: it ran out of work, the solver's bound
    /// cut no prefix, every execution was expanded and no trace held events kept in their
    /// recorded order.
    pub fn complete(&self) -> bool {
        self.done && self.cut == 0 && self.unexpanded == 0 && !self.ordered_seen
    }

    /// Partitioned: the place of the execution that ended last in the unpartitioned search's
    /// order ([`child_key`]); `None` when not partitioned.
    pub fn last_order_key(&self) -> Option<&[u64]> {
        self.last_key.as_deref()
    }

    /// What the execution that ended last leaves out of the claim (it left its prefix, its
    /// expansion had prefixes the solver's bound cut, it had events kept in recorded order).
    pub fn last_shortfall(&self) -> Shortfall {
        self.last_shortfall
    }

    /// Executions finished.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// Prefixes the solver found (each became an item).
    pub fn solved(&self) -> u64 {
        self.solved
    }

    /// Prefixes the solver proved impossible, and those its node bound cut.
    pub fn unsolved(&self) -> (u64, u64) {
        (self.infeasible, self.cut)
    }

    /// Executions that could not follow their prefix.
    pub fn divergences(&self) -> u64 {
        self.divergences
    }

    /// Distinct reads-from pairs seen over all executions.
    pub fn pairs_seen(&self) -> usize {
        self.pairs.len()
    }

    /// The coverage statement this search supports now.
    pub fn coverage(&self) -> String {
        let stats = format!(
            "{} executions, {} reads-from pairs, {} prefixes solved, {} impossible, {} solver nodes",
            self.executions,
            self.pairs.len(),
            self.solved,
            self.infeasible,
            self.nodes
        );
        if !self.done {
            return format!(
                "MCR did not finish its worklist ({} prefixes left): no claim beyond the \
                 executions run ({stats})",
                self.worklist.len()
            );
        }
        let mut s = if self.cut + self.unexpanded > 0 {
            format!(
                "MCR's worklist is empty but its bounds left alternatives out (the solver's \
                 bound of {} nodes cut {} prefixes; {} executions were not or not wholly \
                 expanded, longer than {MAX_EXPANDED_EVENTS} events or with more \
                 alternatives than one expansion may solve): not exhausted ({stats})",
                self.max_nodes, self.cut, self.unexpanded
            )
        } else if self.ordered_seen {
            format!(
                "MCR explored every reads-from combination reachable under this input with \
                 wait/notify, park/unpark and interrupts in their recorded order (a notify woke \
                 the longest waiter): not exhausted, since other orders of those were not \
                 tried ({stats})"
            )
        } else {
            format!(
                "MCR explored every reads-from combination reachable under this input \
                 ({stats})"
            )
        };
        if self.divergences > 0 {
            s.push_str(&format!(
                "; {} executions left their prefix (uncontrolled nondeterminism), so the claim \
                 is weakened",
                self.divergences
            ));
        }
        s
    }

    fn absorb(&mut self, events: &[Event]) {
        for e in &events[self.absorbed.min(events.len())..] {
            let t = e.thread.index();
            if self.next_index.len() <= t {
                self.next_index.resize(t + 1, 0);
            }
            self.next_index[t] += 1;
        }
        self.absorbed = events.len();
    }

    fn next_of(&self, t: ThreadId) -> u32 {
        self.next_index.get(t.index()).copied().unwrap_or(0)
    }

    /// The event the prefix wants next, after skipping those already performed.
    fn wanted(&mut self) -> Option<(ThreadId, u32)> {
        while let Some(&(t, first, count)) = self.active.prefix.get(self.cursor.0) {
            let index = first + self.cursor.1;
            if self.next_of(t) <= index {
                return Some((t, index));
            }
            self.cursor.1 += 1;
            if self.cursor.1 >= count {
                self.cursor = (self.cursor.0 + 1, 0);
            }
        }
        None
    }

    /// Events of the prefix performed (all of them unless the execution diverged).
    fn followed(&self) -> usize {
        let prefix = &self.active.prefix;
        let whole: usize = prefix.iter().map(|r| r.2 as usize).sum();
        if !self.diverged {
            return whole;
        }
        let done: usize = prefix[..self.cursor.0.min(prefix.len())]
            .iter()
            .map(|r| r.2 as usize)
            .sum();
        done + self.cursor.1 as usize
    }

    /// Queues a prefix for every read past `fixed` and every write it did not see.
    fn expand(&mut self, trace: &Trace, fixed: usize) {
        self.solving_here = 0;
        self.work_here = 0;
        if trace.len() - fixed > MAX_EXPANDED_EVENTS {
            self.unexpanded += 1;
            return;
        }
        // The last event of each thread in the enforced prefix: a new prefix extends it, so an
        // item's descendants keep its reads-from constraints.
        let prefix_ends: Vec<usize> = {
            let mut ends = vec![None; trace.by_thread.len()];
            for p in 0..fixed {
                ends[trace.thread(p).index()] = Some(p);
            }
            ends.into_iter().flatten().collect()
        };
        for r in fixed..trace.len() {
            if trace.is_read(r) {
                for w in trace.other_writers(r) {
                    if !self.may_solve() {
                        return;
                    }
                    let needs = |p: usize| if p == r { w } else { trace.saw[p] };
                    let mut seeds = prefix_ends.clone();
                    seeds.push(r);
                    seeds.extend(w);
                    self.queue(trace, seeds, needs, r, None);
                }
            }
        }
        // Lock order: an acquisition that followed another thread's acquisition of the same
        // monitor goes first instead, with the other thread stopped just before its own. Two orders of critical sections that share no data
        // are one reads-from combination, yet one of them may deadlock when one of the two
        // acquisitions is nested (only then, so lock order adds no execution elsewhere).
        for a in fixed..trace.len() {
            let e = trace.events[a];
            if e.kind != OpKind::MonitorEnter {
                continue;
            }
            let Some(b) = trace.entered_before(a).filter(|&b| b >= fixed) else {
                continue;
            };
            if !trace.holds_another(a) && !trace.holds_another(b) {
                continue;
            }
            if !self.may_solve() {
                return;
            }
            let tb = trace.thread(b);
            let mut seeds = prefix_ends.clone();
            // b's thread up to just before b, so that it holds what it held there.
            if let Some(rank) = trace.rank[b].checked_sub(1) {
                seeds.push(trace.by_thread[tb.index()][rank]);
            }
            seeds.push(a);
            let marker = (
                (u32::MAX, e.thread.0, e.target),
                Some((tb.0, trace.rank[b] as u32)),
            );
            self.queue(trace, seeds, |p| trace.saw[p], a, Some((b, marker)));
        }
    }

    /// Whether the running expansion may hand one more prefix to the solver; once it may not,
    /// the execution counts as not wholly expanded.
    fn may_solve(&mut self) -> bool {
        if self.solving_here >= MAX_SOLVED_PER_EXECUTION || self.work_here >= MAX_WORK_PER_EXECUTION
        {
            self.unexpanded += 1;
            return false;
        }
        self.solving_here += 1;
        true
    }

    /// Queues the prefix holding `seeds` and what they need, in which every read `p` sees
    /// `needs(p)`, unless one with the same constraints was queued. `changed` is the event whose
    /// thread may go another way after it; `before`, for a lock-order item, the other thread's
    /// acquisition the prefix must not hold, and a marker that tells the item apart.
    fn queue(
        &mut self,
        trace: &Trace,
        mut seeds: Vec<usize>,
        needs: impl Fn(usize) -> Writer + Copy,
        changed: usize,
        before: Option<(usize, RfPair)>,
    ) {
        let mut want = trace.closure(&seeds, needs);
        loop {
            let mut except = vec![trace.thread(changed)];
            except.extend(before.map(|(b, _)| trace.thread(b)));
            let more = trace.releases(&want, &except);
            if more.is_empty() {
                break;
            }
            seeds.extend(more);
            want = trace.closure(&seeds, needs);
        }
        let mut signature = signature(trace, &want, needs);
        if let Some((b, marker)) = before {
            if want[trace.thread(b).index()] > trace.rank[b] {
                self.infeasible += 1;
                return;
            }
            signature.push(marker);
        }
        if self.dedup && !self.queued.insert(signature) {
            self.repeated += 1;
            return;
        }
        let (answer, nodes) = solver::solve(trace, &want, needs, self.max_nodes);
        self.nodes += nodes;
        self.work_here += trace.len() as u64 + nodes * trace.by_thread.len() as u64;
        match answer {
            Solved::Order(order) => {
                self.solved += 1;
                self.solved_here += 1;
                if let Some(item) = self.place(self.solved_here - 1, runs(trace, &order)) {
                    self.worklist.push_back(item);
                }
            }
            Solved::Infeasible => self.infeasible += 1,
            Solved::Cut => self.cut += 1,
        }
    }
}

impl Mcr {
    /// The `j`-th prefix the running execution solved as a work item, or `None` when another
    /// part owns it (its constraints stay queued: its owner runs it).
    fn place(&self, j: u64, prefix: Vec<Run>) -> Option<Item> {
        let Some(part) = self.partition else {
            return Some(Item {
                prefix,
                ..Item::default()
            });
        };
        let cell = self.active.cell.unwrap_or(j);
        part.owns(cell).then(|| Item {
            prefix,
            cell: Some(cell),
            key: child_key(&self.active.key, j),
        })
    }
}

/// The reads-from constraints of a prefix holding `want[t]` events of each thread: what tells
/// two items apart.
fn signature(trace: &Trace, want: &[usize], needs: impl Fn(usize) -> Writer) -> Vec<RfPair> {
    let mut v: Vec<RfPair> = want
        .iter()
        .enumerate()
        .flat_map(|(t, &n)| trace.by_thread[t][..n].iter().copied())
        .filter(|&p| trace.is_read(p))
        .map(|p| pair(trace, p, needs(p)))
        .collect();
    v.sort_unstable();
    v
}

/// The events at `order` as runs of consecutive occurrences of one thread.
fn runs(trace: &Trace, order: &[usize]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for &p in order {
        let (thread, rank) = (trace.events[p].thread, trace.rank[p] as u32);
        match out.last_mut() {
            Some((t, first, count)) if *t == thread && *first + *count == rank => *count += 1,
            _ => out.push((thread, rank, 1)),
        }
    }
    out
}

impl Strategy for Mcr {
    fn begin_execution(&mut self, index: u64) {
        self.cursor = (0, 0);
        self.next_index.clear();
        self.absorbed = 0;
        self.diverged = false;
        self.solved_here = 0;
        self.free.begin_execution(index);
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.absorb(view.events);
        if !self.diverged {
            if let Some((t, index)) = self.wanted() {
                if self.next_of(t) == index && view.candidate(t).is_some() {
                    return Ok(t);
                }
                self.diverged = true;
            }
        }
        self.free.pick(view)
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.executions += 1;
        let trace = Trace::new(summary.events);
        let fixed = self.followed().min(trace.len());
        if self.diverged {
            self.divergences += 1;
        }
        self.ordered_seen |= !trace.ordered.is_empty();
        self.pairs.extend(reads_from(summary.events));
        let cut_before = self.cut + self.unexpanded;
        self.expand(&trace, fixed);
        self.last_shortfall = Shortfall {
            left_prefix: self.diverged,
            undecided: self.cut + self.unexpanded - cut_before,
            order_kept: !trace.ordered.is_empty(),
        };
        self.last_key = self.partition.map(|_| self.active.key.clone());
        match self.worklist.pop_front() {
            Some(item) => {
                self.active = item;
                true
            }
            None => {
                self.active.prefix.clear();
                self.done = true;
                false
            }
        }
    }
}
