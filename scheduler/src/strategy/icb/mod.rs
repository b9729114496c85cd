//! ICB — iterative context bounding (Musuvathi & Qadeer, *Iterative Context Bounding for
//! Systematic Testing of Multithreaded Programs*, PLDI 2007, §3 and Algorithm 1; restated in
//! `ALGORITHMS.md`, "ICB").
//!
//! Every execution with at most `c` preemptions runs before any with `c + 1`. The search is
//! stateless: an execution replays the prefix of choices of a *work item* and then follows the
//! no-preemption default (keep running the current thread; when it blocks or ends, the lowest
//! enabled id; after it yields or sleeps, the next enabled id). At every scheduling point past the
//! prefix, switching to another enabled thread is queued as a work item at bound + 1 (a
//! preemption) or at the same bound (a free switch: the running thread blocked, ended, yielded or
//! slept — CHESS treats a yield as "cannot make progress", and for fairness the yielder does not
//! run again while another thread can; or another waiter for a `notify`).
//! Each schedule is the
//! default completion of exactly one work item, so each runs exactly once.
//!
//! **HB pruning** (optional, RankChecker §5 / CHESS): a state is the happens-before graph of the
//! prefix (its canonical hash, see [`crate::hb`]) plus the running thread. A state first reached
//! with `p` preemptions has its whole subtree within the bound explored, so an alternative that
//! leads to a state already reached (or claimed by a queued item) with `≤ p` preemptions is not
//! queued, and an execution that walks into such a state ends there ([`Stop::Pruned`]). This keeps every
//! reachable final state while cutting executions that only reorder independent steps.
//!
//! The frontier (the work items, the bound, the pruning tables) has a versioned text form
//! ([`frontier_text`]) so it can live in the agent between executions and survive a JVM
//! restart.
//!
//! **Partitioned** ([`Icb::with_partition`], `--shard I/N`): every part runs the first
//! execution; the alternatives it queues are numbered (cells) and part `I` keeps only the cells
//! it owns ([`Partition`]) with their subtrees, so without pruning N parts run exactly the
//! unpartitioned search's schedules, each execution tagged with its place in that search's
//! order ([`order`]). With pruning each part prunes by what it explored itself (it still
//! honours the claims of the first execution's items, which their owners explore): every
//! state is still explored, but the parts together may run more executions than one search.

mod frontier_text;
pub mod order;

pub use frontier_text::{FrontierError, FRONTIER_HEADER};

use crate::hb::{self, HbTracker};
use crate::ids::{ObjId, ThreadId};
use crate::op::OpKind;
use crate::schedule::{Choice, Schedule};
use crate::strategy::partition::Partition;
use crate::strategy::{Candidate, Divergence, ExecutionSummary, Pick, Stop, Strategy, Via, View};
use order::OrderKey;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// A prefix of choices to replay, and the preemptions it contains. Prefixes are run-length
/// encoded ([`Schedule`]): a thread usually runs many steps in a row, so an item costs memory per
/// context switch, not per step.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Item {
    preemptions: u32,
    /// Partitioned: which of the first execution's alternatives this item descends from
    /// (`None`: the first execution itself).
    cell: Option<u64>,
    /// Partitioned: the place of its execution in the unpartitioned order (empty otherwise).
    key: OrderKey,
    choices: Schedule,
}

/// Iterative context bounding up to `max_bound` preemptions.
#[derive(Debug)]
pub struct Icb {
    max_bound: u32,
    prune: bool,
    bound: u32,
    /// Items at `bound`, a stack (depth first).
    current: Vec<Item>,
    /// Items at `bound + 1`.
    next: Vec<Item>,
    active: Item,
    exhausted: bool,
    executions: u64,
    divergences: u64,
    /// State (prefix HB hash, running thread) → fewest preemptions it was reached with.
    visited: HashMap<(u64, u32), u32>,
    /// States a queued item will reach first, with its preemptions.
    claimed: HashMap<(u64, u32), u32>,
    graphs: HashSet<u64>,
    // Per execution.
    history: Schedule,
    /// Replay position in `active.choices`: (run, offset within the run).
    cursor: (usize, u32),
    preemptions: u32,
    running: Option<ThreadId>,
    stop_branching: bool,
    /// This execution was ended early by pruning.
    stopped: bool,
    /// Executions ended early by pruning.
    pruned_executions: u64,
    hb: HbTracker,
    /// The part of the search this one runs (`None`: all of it).
    partition: Option<Partition>,
    /// Items this execution queued at its own bound, and for the next one (order keys).
    queued_same: u64,
    queued_next: u64,
    /// Partitioned: the order key of the execution that ended last.
    last_key: Option<OrderKey>,
}

impl Icb {
    /// A search of every schedule with at most `max_bound` preemptions; `prune` turns on
    /// happens-before pruning.
    pub fn new(max_bound: u32, prune: bool) -> Icb {
        Icb {
            max_bound,
            prune,
            bound: 0,
            current: Vec::new(),
            next: Vec::new(),
            active: Item {
                preemptions: 0,
                cell: None,
                key: Vec::new(),
                choices: Schedule::new(),
            },
            exhausted: false,
            executions: 0,
            divergences: 0,
            visited: HashMap::new(),
            claimed: HashMap::new(),
            graphs: HashSet::new(),
            history: Schedule::new(),
            cursor: (0, 0),
            preemptions: 0,
            running: None,
            stop_branching: false,
            stopped: false,
            pruned_executions: 0,
            hb: HbTracker::new(),
            partition: None,
            queued_same: 0,
            queued_next: 0,
            last_key: None,
        }
    }

    /// This search restricted to `partition` (see the module doc); `None` runs all of it.
    pub fn with_partition(mut self, partition: Option<Partition>) -> Icb {
        self.partition = partition;
        if partition.is_some() {
            self.active.key = order::root();
        }
        self
    }

    /// Partitioned: the place of the execution that ended last in the order the unpartitioned
    /// search runs its executions ([`order`]); `None` when not partitioned.
    pub fn last_order_key(&self) -> Option<&[u64]> {
        self.last_key.as_deref()
    }

    /// Whether every schedule within the bound has run.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// The bound being explored now (after exhaustion: the largest one explored).
    pub fn bound(&self) -> u32 {
        self.bound
    }

    /// The largest bound this search will reach.
    pub fn max_bound(&self) -> u32 {
        self.max_bound
    }

    /// Executions finished so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// Distinct happens-before graphs among the finished executions.
    pub fn distinct_graphs(&self) -> usize {
        self.graphs.len()
    }

    /// Executions ended early because the rest had been explored from the same state.
    pub fn pruned_executions(&self) -> u64 {
        self.pruned_executions
    }

    /// Executions whose program did not offer what their prefix said (nondeterminism the
    /// scheduler does not control); their subtrees may be incomplete.
    pub fn divergences(&self) -> u64 {
        self.divergences
    }

    /// Work items still queued (both bounds).
    pub fn pending(&self) -> usize {
        self.current.len() + self.next.len() + usize::from(!self.exhausted)
    }

    /// The coverage statement this search supports now.
    pub fn coverage(&self) -> String {
        let what = if self.prune {
            "every happens-before-distinct schedule"
        } else {
            "every schedule"
        };
        if self.exhausted {
            let mut s = format!(
                "{what} with <= {} preemptions over these scheduling points ran ({} executions, {} distinct happens-before graphs)",
                self.max_bound,
                self.executions,
                self.graphs.len()
            );
            if self.divergences > 0 {
                let _ = write!(
                    s,
                    "; {} executions diverged from their prefix (uncontrolled nondeterminism), so the claim is weakened",
                    self.divergences
                );
            }
            s
        } else if self.bound > 0 {
            format!(
                "{what} with <= {} preemptions ran; bound {} not exhausted ({} executions, {} distinct happens-before graphs)",
                self.bound - 1,
                self.bound,
                self.executions,
                self.graphs.len()
            )
        } else {
            format!(
                "bound 0 not exhausted: no preemption-bound claim ({} executions, {} distinct happens-before graphs)",
                self.executions,
                self.graphs.len()
            )
        }
    }

    fn replaying(&self) -> Option<Choice> {
        self.active.choices.runs().get(self.cursor.0).map(|r| r.0)
    }

    /// Appends `choice` to this execution's history (moving the replay cursor along).
    fn made(&mut self, choice: Choice) {
        self.history.push(choice);
        if let Some(&(_, count)) = self.active.choices.runs().get(self.cursor.0) {
            self.cursor.1 += 1;
            if self.cursor.1 >= count {
                self.cursor = (self.cursor.0 + 1, 0);
            }
        }
    }

    /// Registers the state reached now at the frontier; `true` if its subtree is someone else's
    /// to explore (reached or claimed before with no more preemptions), so this execution stops
    /// branching. A state's explorer is recorded in `visited`; executions that stop branching
    /// record nothing.
    fn visit(&mut self, state: (u64, u32)) -> bool {
        if !self.prune || self.replaying().is_some() {
            return false;
        }
        if self.stop_branching {
            return true;
        }
        let p = self.preemptions;
        let frontier_start = self.history.len() == self.active.choices.len();
        if frontier_start && self.claimed.get(&state) == Some(&p) {
            // The state this work item was queued for: it is ours to explore.
            self.claimed.remove(&state);
        } else if self.visited.get(&state).is_some_and(|&q| q <= p)
            || self.claimed.get(&state).is_some_and(|&q| q <= p)
        {
            return true;
        }
        let e = self.visited.entry(state).or_insert(p);
        *e = (*e).min(p);
        false
    }

    /// Queues the alternative `choice` at `cost` preemptions, unless pruning knows the `state`
    /// it leads to (`None`: not known in advance) is explored with as few.
    fn queue(&mut self, choice: Choice, cost: u32, state: Option<(u64, u32)>) {
        if cost > self.max_bound {
            return;
        }
        if let (true, Some(state)) = (self.prune, state) {
            let covered = |m: &HashMap<(u64, u32), u32>| m.get(&state).is_some_and(|&q| q <= cost);
            if covered(&self.visited) || covered(&self.claimed) {
                return;
            }
            self.claimed.insert(state, cost);
        }
        let next_bound = cost > self.bound;
        let Some((cell, key)) = self.place(next_bound) else {
            return;
        };
        let mut choices = self.history.clone();
        choices.push(choice);
        let item = Item {
            preemptions: cost,
            cell,
            key,
            choices,
        };
        if next_bound {
            self.next.push(item);
        } else {
            self.current.push(item);
        }
    }

    /// The cell and order key of the item being queued (at the next bound or this one), or
    /// `None` when another part owns it; `(None, [])` when the search is not partitioned.
    fn place(&mut self, next_bound: bool) -> Option<(Option<u64>, OrderKey)> {
        let Some(part) = self.partition else {
            return Some((None, Vec::new()));
        };
        // Numbered whether this part keeps it or not: the keys and cells are the
        // unpartitioned search's.
        let key = if next_bound {
            self.queued_next += 1;
            order::next_bound(&self.active.key, self.bound + 1, self.queued_next - 1)
        } else {
            self.queued_same += 1;
            order::same_bound(&self.active.key, self.queued_same - 1)
        };
        let cell = self
            .active
            .cell
            .unwrap_or(self.queued_same + self.queued_next - 1);
        // Another part's subtree is not kept (the claim made for it stays: its owner explores
        // that state).
        part.owns(cell).then_some((Some(cell), key))
    }

    fn diverged(&mut self, expected: Choice, offered: Vec<Choice>) -> Pick {
        self.divergences += 1;
        Err(Stop::Diverged(Divergence {
            choice_index: self.history.len(),
            expected: Some(expected),
            offered,
        }))
    }

    fn advance(&mut self) -> bool {
        loop {
            if let Some(item) = self.current.pop() {
                self.active = item;
                return true;
            }
            if self.next.is_empty() || self.bound >= self.max_bound {
                self.exhausted = true;
                return false;
            }
            self.bound += 1;
            self.current = std::mem::take(&mut self.next);
            self.current.reverse();
        }
    }
}

/// Whether the running thread gives way: its last step was a `yield` or `sleep` (CHESS: a
/// thread that yields cannot make progress, so switching away from it is free; without this, a
/// spin loop with `Thread.yield` would never end at bound 0), or it could go on only by a timeout
/// while another thread can run normally (virtual time passes only when nobody else can run).
pub(crate) fn yielded(view: &View<'_>) -> bool {
    let just_yielded = view.events.last().is_some_and(|e| {
        Some(e.thread) == view.running && matches!(e.kind, OpKind::Yield | OpKind::Sleep)
    });
    let only_by_time = view.running_candidate().is_some_and(|c| !normal(c))
        && view
            .enabled
            .iter()
            .any(|c| Some(c.thread) != view.running && normal(c));
    just_yielded || only_by_time
}

/// Whether a candidate is enabled other than by a timeout. (Spurious wake-ups are bounded per
/// execution by the model, so they cannot spin forever and stay ordinary choices.)
pub(crate) fn normal(c: &Candidate) -> bool {
    c.via != Via::Timeout
}

/// The next enabled thread after `running` in id order (wrapping), preferring ones enabled
/// normally.
pub(crate) fn round_robin_after(view: &View<'_>, running: ThreadId) -> ThreadId {
    let order = view
        .enabled
        .iter()
        .filter(|c| c.thread > running)
        .chain(view.enabled.iter().filter(|c| c.thread <= running));
    let mut first = None;
    for c in order {
        if normal(c) && c.thread != running {
            return c.thread;
        }
        first.get_or_insert(c.thread);
    }
    first.unwrap_or(view.enabled[0].thread)
}

/// Whether picking `t` costs a preemption.
fn costs(view: &View<'_>, t: ThreadId, yielded: bool) -> bool {
    view.is_preemption(t) && !yielded
}

impl Strategy for Icb {
    fn begin_execution(&mut self, _index: u64) {
        self.history.clear();
        self.cursor = (0, 0);
        self.preemptions = 0;
        self.running = None;
        self.stop_branching = false;
        self.stopped = false;
        self.hb.reset();
        self.queued_same = 0;
        self.queued_next = 0;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.hb.sync(view.events);
        let running = view.running.map_or(u32::MAX, |t| t.0);
        let state = (self.hb.hash(), running);
        if self.visit(state) {
            // Everything from here on was (or will be) explored from this same state: end the
            // execution now instead of running a duplicate to its end.
            self.stop_branching = true;
            self.stopped = true;
            return Err(Stop::Pruned);
        }
        let chosen = if let Some(expected) = self.replaying() {
            match expected {
                Choice::Thread(t) if view.candidate(t).is_some() => t,
                _ => {
                    let offered = view
                        .enabled
                        .iter()
                        .map(|c| Choice::Thread(c.thread))
                        .collect();
                    return self.diverged(expected, offered);
                }
            }
        } else {
            let yielded = yielded(view);
            let default = if yielded {
                // A thread that yields lets the next enabled thread (round robin) run.
                let running = view
                    .running
                    .expect("a yield was performed by the running thread");
                round_robin_after(view, running)
            } else if view.running_enabled {
                view.running.expect("running_enabled implies running")
            } else {
                view.enabled[0].thread
            };
            if !self.stop_branching {
                for c in view.enabled.iter().rev() {
                    // Fairness (CHESS): a thread that yielded does not run again while another
                    // thread can, so a spin loop cannot starve the thread it waits for.
                    if c.thread == default || (yielded && view.running == Some(c.thread)) {
                        continue;
                    }
                    let cost = self.preemptions + u32::from(costs(view, c.thread, yielded));
                    // A thread query's state depends on its answer, unknown until performed
                    // (its label holds it): such an alternative is never pruned.
                    let after = (!c.op.is_thread_query()).then(|| {
                        let e = hb::pending_event(c.thread, &c.op, 0, view.threads);
                        (self.hb.hash_after_event(&e), c.thread.0)
                    });
                    self.queue(Choice::Thread(c.thread), cost, after);
                }
            }
            default
        };
        if costs(view, chosen, yielded(view)) {
            self.preemptions += 1;
        }
        self.made(Choice::Thread(chosen));
        self.running = Some(chosen);
        Ok(chosen)
    }

    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        let chosen = if let Some(expected) = self.replaying() {
            match expected {
                Choice::Waiter(w) if waiters.contains(&w) => w,
                _ => {
                    let offered = waiters.iter().map(|&w| Choice::Waiter(w)).collect();
                    return self.diverged(expected, offered);
                }
            }
        } else {
            if !self.stop_branching {
                let running = self.running.map_or(u32::MAX, |t| t.0);
                for &w in waiters[1..].iter().rev() {
                    let label = hb::WOKEN_LABEL;
                    let key = (hb::monitor_key(obj.0), hb::Mode::Write);
                    let after = (self.hb.hash_after(w.0, label, &[key]), running);
                    self.queue(Choice::Waiter(w), self.preemptions, Some(after));
                }
            }
            waiters[0]
        };
        self.hb.record_woken(chosen, obj.0);
        self.made(Choice::Waiter(chosen));
        Ok(chosen)
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.hb.sync(summary.events);
        if self.stopped {
            self.pruned_executions += 1;
        } else {
            self.graphs.insert(self.hb.hash());
        }
        self.executions += 1;
        if self.partition.is_some() {
            self.last_key = Some(self.active.key.clone());
        }
        if self.exhausted {
            return false;
        }
        self.advance()
    }
}
