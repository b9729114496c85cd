//! RankChecker — variable and thread bounding (Bindal, Bansal, Lal, *Variable and Thread Bounding
//! for Systematic Testing of Multithreaded Programs*: §4 "Thread Bounding" with Lemma 4.1, §5
//! "Implementation" with Algorithm 1 and the yield rule; restated in `ALGORITHMS.md`, "Thread
//! bounding" and "RankChecker search").
//!
//! **Thread bounding.** With context bound `c` a preempted thread is two *fragments*, so there
//! are at most `n + c`. Each execution draws a uniformly random permutation `p₁ … p_{n+c}` of
//! `1 … n+c`; threads `1 … n` (creation order) get priorities `p₁ … p_n`; strict priority
//! scheduling; at the `i`-th change point the running thread's priority becomes `p_{n+i}`. After
//! `m ≥ t!·ln(C(n+c, t)·t!/ε)` executions every relative order of every `t` fragments has been
//! used with probability `≥ 1 − ε`.
//!
//! **Randomized search** ([`RankChecker`]): a variable set of size `v` at random (shared
//! variables first), `c` change points uniformly among the accesses to it (as PCTVB step 2), and
//! the thread-bounding priorities.
//!
//! **Exhaustive search** ([`RankCheckerExhaustive`], Algorithm 1 as reconstructed in
//! `ALGORITHMS.md`): for `v = 1, 2, …` and each variable set `V` of size `v` (shared first), for
//! `c = 0 … C`, for each of the `m` permutations of Lemma 4.1 over `n + c` fragments, every
//! placement of at most `c` change points among the tracked accesses runs under strict priority.
//! Placements are explored as a stateless tree (each tracked access: fire the next change point
//! here, or not; each `notify` with several waiters: which one wakes, a free choice), and a
//! placement whose state — the canonical hash of the happens-before graph
//! plus the priorities — was already reached for this `V` is pruned with its whole subtree.
//! Pruning never crosses variable sets.
//!
//! **`c` modes.** RankChecker counts only preemptions that violate the current priority order
//! (the change points); a higher-priority thread becoming enabled and taking over is free.
//! CHESS mode counts every preemption: once `c` are used, the running thread is never preempted.
//!
//! **Yield rule.** A thread that yields or sleeps 100 times (or re-reads the same location 100
//! times in a row, a spin loop without a yield) gets the lowest priority, so spin loops end under
//! strict priority.
//!
//! Accesses outside the tracked variable set are not preemption points: there the running thread
//! keeps running, as if only the tracked variables were instrumented.

use super::partition::Partition;
use super::pctvb::{draw_change_points, shuffle, VarProfile, Variable};
use crate::bounds;
use crate::hb::{self, HbTracker};
use crate::ids::{ObjId, ThreadId, VarId};
use crate::op::Op;
use crate::rng::{RandomSource, SeededRandom};
use crate::strategy::{ExecutionSummary, Pick, Stop, Strategy, View};
use std::collections::{HashMap, HashSet};

/// Yields (or sleeps, or spinning re-reads) after which a thread's priority is lowered.
pub const YIELD_LIMIT: u32 = 100;

/// Which preemptions count towards the context bound `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CMode {
    /// Only preemptions that violate the current priority order (RankChecker §5).
    #[default]
    RankChecker,
    /// Every preemption (CHESS).
    Chess,
}

impl std::str::FromStr for CMode {
    type Err = String;
    fn from_str(s: &str) -> Result<CMode, String> {
        match s {
            "rankchecker" => Ok(CMode::RankChecker),
            "chess" => Ok(CMode::Chess),
            other => Err(format!(
                "unknown c-mode `{other}` (expected rankchecker or chess)"
            )),
        }
    }
}

/// Bits of a [`VarId`] that hold the variable's loop-iteration number (the low bits).
///
/// The agent names a heap variable by (allocation site, allocating thread, allocation call
/// stack, iteration number) when the loop-iteration bound `l` is given (agent/src/naming.rs);
/// it puts the iteration number, saturated at [`MAX_ITERATION`], into these bits so that a
/// strategy can bound it without knowing how names are made. Statics and site-level names
/// carry iteration 0.
pub const ITERATION_BITS: u32 = 4;
/// The largest iteration number a [`VarId`] can carry (later iterations saturate to it).
pub const MAX_ITERATION: u32 = (1 << ITERATION_BITS) - 1;

/// The variable id of a name: 27 bits of `hash` and the iteration number (saturated). Never
/// [`VarId::UNKNOWN`] (bit 31 is clear).
pub fn named_var(hash: u64, iteration: u64) -> VarId {
    let hash_bits = (hash as u32) & (0x7fff_ffff >> ITERATION_BITS);
    let i = iteration.min(u64::from(MAX_ITERATION)) as u32;
    VarId((hash_bits << ITERATION_BITS) | i)
}

/// The loop-iteration number a variable id carries (0 for [`VarId::UNKNOWN`]).
pub fn iteration(var: VarId) -> u32 {
    if var == VarId::UNKNOWN {
        0
    } else {
        var.0 & MAX_ITERATION
    }
}

/// Whether `var` is within the loop-iteration bound `l` (every variable when `l` is `None`;
/// monitors always).
pub fn within_iteration_bound(var: Variable, l: Option<u32>) -> bool {
    match (var, l) {
        (Variable::Field(v), Some(l)) => iteration(v) < l || l > MAX_ITERATION,
        _ => true,
    }
}

/// Whether the running thread's pending `op` is a point where a switch may happen: every
/// synchronization operation, and accesses to the tracked variables.
pub(crate) fn is_tracked_point(op: &Op, tracked: &[Variable]) -> bool {
    match op {
        Op::Access { var, .. } => tracked.contains(&Variable::Field(*var)),
        _ => true,
    }
}

/// Strict-priority scheduling state of one execution: per-thread priorities (higher runs
/// first), the yield rule, and the CHESS-mode preemption budget.
#[derive(Clone, Debug, Default)]
pub(crate) struct Priorities {
    initial: Vec<f64>,
    values: Vec<Option<f64>>,
    /// Range an unforeseen thread (beyond the initial `n`) gets a random priority from.
    low: f64,
    high: f64,
    /// Next "below everything" priority for the yield rule.
    floor: f64,
    yields_at_lowering: Vec<u32>,
    /// Per thread: the location of its last performed read and how often in a row.
    spin: Vec<(Option<u64>, u32)>,
    budget: Option<u32>,
    used: u32,
}

impl Priorities {
    /// A new execution: thread `i < initial.len()` starts with `initial[i]`.
    pub(crate) fn reset(&mut self, initial: Vec<f64>, low: f64, high: f64) {
        *self = Priorities {
            initial,
            low,
            high,
            floor: 0.0,
            budget: self.budget,
            ..Priorities::default()
        };
    }

    /// CHESS mode: at most `budget` preemptions in total.
    pub(crate) fn set_budget(&mut self, budget: Option<u32>) {
        self.budget = budget;
    }

    pub(crate) fn set(&mut self, t: ThreadId, value: f64) {
        let i = t.index();
        if self.values.len() <= i {
            self.values.resize(i + 1, None);
        }
        self.values[i] = Some(value);
    }

    pub(crate) fn value(&mut self, t: ThreadId, rng: &mut impl RandomSource) -> f64 {
        let i = t.index();
        if self.values.len() <= i {
            self.values.resize(i + 1, None);
        }
        if let Some(v) = self.values[i] {
            return v;
        }
        let v = self
            .initial
            .get(i)
            .copied()
            .unwrap_or_else(|| self.low + rng.unit() * (self.high - self.low));
        self.values[i] = Some(v);
        v
    }

    /// A hash of every priority assigned so far (part of the exhaustive search's state).
    /// Threads not looked at yet count with their initial priority: two states that differ
    /// only in a later thread's future priority are different states.
    pub(crate) fn fingerprint(&self) -> u64 {
        let threads = self.values.len().max(self.initial.len());
        let effective = (0..threads).map(|i| match self.values.get(i).copied().flatten() {
            Some(v) => v.to_bits(),
            None => self.initial.get(i).map_or(u64::MAX, |v| v.to_bits()),
        });
        let yields = self.yields_at_lowering.iter().map(|&y| u64::from(y));
        hb::mix_all(
            effective
                .chain(yields)
                .chain([self.floor.to_bits(), u64::from(self.used)]),
        )
    }

    /// The highest-priority enabled thread, after the yield rule; at a point that is not a
    /// tracked point of the running thread (`is_point` false), or when the CHESS budget is spent,
    /// the running thread keeps running.
    pub(crate) fn pick(
        &mut self,
        view: &View<'_>,
        rng: &mut impl RandomSource,
        is_point: impl Fn(&Op) -> bool,
    ) -> ThreadId {
        for c in view.enabled {
            let i = c.thread.index();
            if self.yields_at_lowering.len() <= i {
                self.yields_at_lowering.resize(i + 1, 0);
                self.spin.resize(i + 1, (None, 0));
            }
            let spinning = self.spin[i].1 >= YIELD_LIMIT;
            if c.yields >= self.yields_at_lowering[i] + YIELD_LIMIT || spinning {
                self.yields_at_lowering[i] = c.yields;
                self.spin[i].1 = 0;
                self.floor -= 1.0;
                let floor = self.floor;
                self.set(c.thread, floor);
            }
        }
        let running = view.running_candidate().map(|c| (c.thread, c.op));
        let running_normal = view.running_candidate().is_some_and(super::icb::normal);
        let chosen = match running {
            Some((t, op)) if !is_point(&op) && running_normal => t,
            Some((t, _)) if running_normal && self.budget.is_some_and(|b| self.used >= b) => t,
            _ => {
                // Virtual time: a timeout happens only when no thread can run otherwise (else a
                // high-priority timed-wait loop would spin forever).
                let any_normal = view.enabled.iter().any(super::icb::normal);
                let mut best = view.enabled[0].thread;
                let mut best_value = f64::NEG_INFINITY;
                for c in view.enabled {
                    if any_normal && !super::icb::normal(c) {
                        continue;
                    }
                    let v = self.value(c.thread, rng);
                    if v > best_value {
                        best = c.thread;
                        best_value = v;
                    }
                }
                best
            }
        };
        // Leaving a thread that could only time out is not a preemption (it gives way).
        if view.is_preemption(chosen) && running_normal {
            self.used += 1;
        }
        if let Some(c) = view.candidate(chosen) {
            let i = chosen.index();
            self.spin[i] = match c.op {
                Op::Access {
                    loc, write: false, ..
                } => {
                    let (last, n) = self.spin[i];
                    (Some(loc.0), if last == Some(loc.0) { n + 1 } else { 1 })
                }
                _ => (None, 0),
            };
        }
        chosen
    }
}

/// How many fragments' relative order a `t`-thread bug at bound `c` depends on: its `t` threads
/// plus the `c` fragments the preemptions create (§4: "consider a pre-empted thread as two
/// distinct threads"), at most all `n + c` fragments. Lemma 4.1 is applied to subsets of this
/// size: covering only `t`-subsets of fragments would miss e.g. Fig. 4, whose two threads need
/// the chain T1 > T2 > T1' > T2' over four fragments.
pub fn subset_size(t: u32, c: u32, fragments: u32) -> u32 {
    (t + c).clamp(1, fragments.max(1))
}

/// The thread-bounding permutation of one execution: `p₁ … p_{n+c}`, a uniformly random
/// permutation of `1 … n+c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentPermutation {
    values: Vec<u32>,
    threads: u32,
}

impl FragmentPermutation {
    /// Draws the permutation for `threads` threads and `changes` change points.
    pub fn draw(threads: u32, changes: u32, rng: &mut impl RandomSource) -> FragmentPermutation {
        let mut values: Vec<u32> = (1..=threads + changes).collect();
        shuffle(&mut values, rng);
        FragmentPermutation { values, threads }
    }

    /// Priority of thread `i` (creation order), if `i < n`.
    pub fn thread_priority(&self, i: u32) -> Option<u32> {
        (i < self.threads).then(|| self.values[i as usize])
    }

    /// Priority given at the `k`-th change point (1-based), if `k ≤ c`.
    pub fn change_priority(&self, k: u32) -> Option<u32> {
        let i = self.threads as usize + k as usize;
        (k >= 1).then(|| self.values.get(i - 1).copied()).flatten()
    }

    /// All `n + c` values.
    pub fn values(&self) -> &[u32] {
        &self.values
    }

    fn initial(&self) -> Vec<f64> {
        self.values[..self.threads as usize]
            .iter()
            .map(|&v| f64::from(v))
            .collect()
    }
}

/// Settings of both RankChecker searches.
#[derive(Clone, Debug)]
pub struct RankCheckerConfig {
    /// Context bound `c` (randomized: change points per execution; exhaustive: the largest).
    pub c: u32,
    /// Variable bound `v` (exhaustive: the largest).
    pub v: u32,
    /// Thread bound `t` (for Lemma 4.1's `m` and the guarantee).
    pub t: u32,
    /// Threads `n` expected (raised to what preparatory runs see).
    pub threads: u32,
    pub c_mode: CMode,
    /// ε of Lemma 4.1.
    pub epsilon: f64,
    /// Preparatory runs when no profile is supplied.
    pub preparatory_runs: u32,
    pub seed: u64,
    /// Happens-before pruning in the exhaustive search (on by default).
    pub prune: bool,
    /// Loop-iteration bound `l` (exhaustive search): only variables whose run-time name has an
    /// iteration number below `l` ([`iteration`]) are candidates, lower iterations first.
    /// `None`: every variable, in the profile's order.
    pub l: Option<u32>,
}

impl Default for RankCheckerConfig {
    fn default() -> Self {
        RankCheckerConfig {
            c: 2,
            v: 1,
            t: 2,
            threads: 2,
            c_mode: CMode::RankChecker,
            epsilon: 0.01,
            preparatory_runs: 3,
            seed: 0,
            prune: true,
            l: None,
        }
    }
}

/// Randomized RankChecker (§5 "randomized testing algorithm" with §4 priorities).
#[derive(Debug)]
pub struct RankChecker {
    config: RankCheckerConfig,
    profile: VarProfile,
    learning_left: u32,
    rng: SeededRandom,
    perm: FragmentPermutation,
    tracked: Vec<Variable>,
    change_points: HashMap<(Variable, u64), u32>,
    access_counts: HashMap<Variable, u64>,
    priorities: Priorities,
    consumed: usize,
    /// Executions run with thread-bounding priorities (not preparatory).
    ranked_executions: u64,
    fragments: u32,
}

impl RankChecker {
    /// Randomized RankChecker learning its candidate variables from preparatory runs.
    pub fn new(config: RankCheckerConfig) -> RankChecker {
        RankChecker::with_profile(config, VarProfile::default())
    }

    /// Randomized RankChecker with caller-supplied candidates and `Kᵢ`.
    pub fn with_profile(config: RankCheckerConfig, profile: VarProfile) -> RankChecker {
        let learning_left = if profile.is_known() {
            0
        } else {
            config.preparatory_runs.max(1)
        };
        let mut priorities = Priorities::default();
        if config.c_mode == CMode::Chess {
            priorities.set_budget(Some(config.c));
        }
        RankChecker {
            rng: SeededRandom::for_execution(config.seed, 0),
            perm: FragmentPermutation {
                values: Vec::new(),
                threads: 0,
            },
            config,
            profile,
            learning_left,
            tracked: Vec::new(),
            change_points: HashMap::new(),
            access_counts: HashMap::new(),
            priorities,
            consumed: 0,
            ranked_executions: 0,
            fragments: 0,
        }
    }

    fn n(&self) -> u32 {
        self.config.threads.max(self.profile.max_threads()).max(1)
    }

    /// The variables tracked in the current execution.
    pub fn tracked(&self) -> &[Variable] {
        &self.tracked
    }

    /// ε after the executions so far: the probability that some relative order of some `t` of
    /// the `n + c` fragments was never used (Lemma 4.1's union bound).
    pub fn epsilon(&self) -> f64 {
        let f = self.n() + self.config.c;
        bounds::permutation_miss_probability(
            f,
            subset_size(self.config.t, self.config.c, f),
            self.ranked_executions,
        )
    }

    /// The coverage statement after the executions so far.
    pub fn coverage(&self) -> String {
        crate::session_coverage::rankchecker_claim(
            self.n(),
            self.config.c,
            self.config.t,
            self.config.epsilon,
            self.ranked_executions,
        )
    }
}

impl Strategy for RankChecker {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.config.seed, index);
        self.consumed = 0;
        self.access_counts.clear();
        let n = self.n();
        let c = self.config.c;
        self.perm = FragmentPermutation::draw(n, c, &mut self.rng);
        self.fragments = n + c;
        self.priorities
            .reset(self.perm.initial(), 0.5, f64::from(n + c) + 0.5);
        if self.learning_left > 0 {
            self.tracked.clear();
            self.change_points.clear();
        } else {
            self.tracked = self.profile.choose(self.config.v, &mut self.rng);
            self.change_points = draw_change_points(&self.tracked, &self.profile, c, &mut self.rng);
        }
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        while self.consumed < view.events.len() {
            let e = view.events[self.consumed];
            self.consumed += 1;
            if let Some(var) = Variable::of(&e).filter(|v| self.tracked.contains(v)) {
                let count = self.access_counts.entry(var).or_insert(0);
                *count += 1;
                if let Some(&k) = self.change_points.get(&(var, *count)) {
                    if let Some(p) = self.perm.change_priority(k) {
                        self.priorities.set(e.thread, f64::from(p));
                    }
                }
            }
        }
        let learning = self.learning_left > 0;
        let tracked = &self.tracked;
        Ok(self.priorities.pick(view, &mut self.rng, |op| {
            learning || is_tracked_point(op, tracked)
        }))
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        Ok(waiters[self.rng.index(waiters.len())])
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        if self.learning_left > 0 {
            self.profile.learn(summary.events, summary.threads);
            self.learning_left -= 1;
        } else {
            self.ranked_executions += 1;
        }
        true
    }
}

/// Advances `combo` (strictly increasing indices below `n`) to the next combination in
/// colexicographic order; false after the last. Colex order visits every set of the first m
/// candidates before any set using candidate m, which is what "shared (earlier) variables
/// first" needs; the CLI's `test --selective` walks variable sets with it too.
pub fn next_combination(combo: &mut [usize], n: usize) -> bool {
    let k = combo.len();
    for i in 0..k {
        let limit = if i + 1 < k { combo[i + 1] } else { n };
        if combo[i] + 1 < limit {
            combo[i] += 1;
            for (j, x) in combo[..i].iter_mut().enumerate() {
                *x = j;
            }
            return true;
        }
    }
    false
}

/// Distinguishes the state "about to choose a waiter" from the state after the same events.
const WAITER_POINT: u64 = 0x7761_6974_6572_0001;

/// One execution of the exhaustive tree: the tracked-access indices where change points fire.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Placement {
    /// `(decision point, choice)` in execution order, only the non-default ones: at a tracked
    /// access `1` fires the next change point; at a `notify` with several waiters, the index of
    /// the waiter woken. Decision points are numbered in execution order from 1.
    decisions: Vec<(u64, u32)>,
}

impl Placement {
    fn last_point(&self) -> u64 {
        self.decisions.last().map_or(0, |d| d.0)
    }

    fn choice_at(&self, point: u64) -> u32 {
        self.decisions
            .iter()
            .find(|d| d.0 == point)
            .map_or(0, |d| d.1)
    }

    fn with(&self, point: u64, choice: u32) -> Placement {
        let mut decisions = self.decisions.clone();
        decisions.push((point, choice));
        Placement { decisions }
    }
}

/// Exhaustive RankChecker (Algorithm 1 as reconstructed in `ALGORITHMS.md`).
#[derive(Debug)]
pub struct RankCheckerExhaustive {
    config: RankCheckerConfig,
    profile: VarProfile,
    learning_left: u32,
    /// The candidates, shared first; variable sets are combinations of them, generated one at
    /// a time in colexicographic order (every set within the first `k` candidates comes before
    /// any set using candidate `k`, so all-shared sets lead), never all at once.
    candidates: Vec<Variable>,
    combo: Vec<usize>,
    /// The current variable set and its index among the sets of its size.
    set: Vec<Variable>,
    set_index: u64,
    /// Variable sets started so far, of every size, whether this part runs them or not: the
    /// current set's number in the whole enumeration (plus one).
    sets_started: u64,
    /// Run only the variable sets whose number this part owns (`--shard`).
    partition: Option<Partition>,
    /// Executions of the current variable set so far (its next one's place in the set).
    in_set: u64,
    /// The place in the unpartitioned order of the execution that ended last (partitioned).
    last_key: Option<Vec<u64>>,
    v: u32,
    c: u32,
    perm_index: u64,
    perms_needed: u64,
    perm: FragmentPermutation,
    /// Placements still to run for the current (V, c, permutation), a stack.
    frontier: Vec<Placement>,
    active: Placement,
    /// States (HB hash, priorities, change points used) explored for the current V.
    visited: HashSet<u64>,
    claimed: HashSet<u64>,
    graphs: HashSet<u64>,
    exhausted: bool,
    executions: u64,
    pruned_placements: u64,
    // Per execution.
    rng: SeededRandom,
    priorities: Priorities,
    hb: HbTracker,
    consumed: usize,
    /// Decision points passed in this execution (tracked accesses and multi-waiter notifies).
    points: u64,
    fired: u32,
    stop_branching: bool,
    stopped: bool,
}

impl RankCheckerExhaustive {
    /// Exhaustive RankChecker learning candidates from preparatory runs.
    pub fn new(config: RankCheckerConfig) -> RankCheckerExhaustive {
        RankCheckerExhaustive::with_profile(config, VarProfile::default())
    }

    /// Exhaustive RankChecker over caller-supplied candidates.
    pub fn with_profile(config: RankCheckerConfig, profile: VarProfile) -> RankCheckerExhaustive {
        let learning_left = if profile.is_known() {
            0
        } else {
            config.preparatory_runs.max(1)
        };
        let mut priorities = Priorities::default();
        if config.c_mode == CMode::Chess {
            priorities.set_budget(Some(config.c));
        }
        let mut s = RankCheckerExhaustive {
            rng: SeededRandom::for_execution(config.seed, 0),
            config,
            profile,
            learning_left,
            candidates: Vec::new(),
            combo: Vec::new(),
            set: Vec::new(),
            set_index: 0,
            sets_started: 0,
            partition: None,
            in_set: 0,
            last_key: None,
            v: 0,
            c: 0,
            perm_index: 0,
            perms_needed: 0,
            perm: FragmentPermutation {
                values: Vec::new(),
                threads: 0,
            },
            frontier: Vec::new(),
            active: Placement {
                decisions: Vec::new(),
            },
            visited: HashSet::new(),
            claimed: HashSet::new(),
            graphs: HashSet::new(),
            exhausted: false,
            executions: 0,
            pruned_placements: 0,
            priorities,
            hb: HbTracker::new(),
            consumed: 0,
            points: 0,
            fired: 0,
            stop_branching: false,
            stopped: false,
        };
        if s.learning_left == 0 {
            s.start_search();
        }
        s
    }

    /// This search restricted to `partition`: every part runs the preparatory runs, then the
    /// variable sets (numbered over every size, in the order the search takes them) whose
    /// number is the part's mod N, each with all its bounds, permutations and placements.
    /// Pruning is per variable set, so the parts together run exactly the whole search's
    /// executions. Executions carry their place in the whole search's order
    /// ([`RankCheckerExhaustive::last_order_key`]): `[0, i]` for the `i`-th preparatory run,
    /// `[1, set, k]` for the `k`-th execution of a set. `None` runs all of it.
    pub fn with_partition(mut self, partition: Option<Partition>) -> RankCheckerExhaustive {
        self.partition = partition;
        if self.learning_left == 0 {
            self.start_search();
        }
        self
    }

    /// Partitioned: the place of the execution that ended last in the order of the whole
    /// search (see [`RankCheckerExhaustive::with_partition`]); `None` when not partitioned.
    pub fn last_order_key(&self) -> Option<&[u64]> {
        self.last_key.as_deref()
    }

    fn n(&self) -> u32 {
        self.config.threads.max(self.profile.max_threads()).max(1)
    }

    /// Where the search is: `(v, index of the variable set, c, permutation index)`.
    pub fn position(&self) -> (u32, u64, u32, u64) {
        (self.v, self.set_index, self.c, self.perm_index)
    }

    /// The variable set of the current execution.
    pub fn tracked(&self) -> &[Variable] {
        &self.set
    }

    /// Whether the whole search has run.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// Placements skipped because their state had been explored (for this variable set).
    pub fn pruned(&self) -> u64 {
        self.pruned_placements
    }

    /// Distinct happens-before graphs among the finished executions.
    pub fn distinct_graphs(&self) -> usize {
        self.graphs.len()
    }

    /// The ε the search guarantees per (V, c): Lemma 4.1 over `n + c` fragments.
    pub fn epsilon(&self) -> f64 {
        self.config.epsilon
    }

    /// The coverage statement.
    pub fn coverage(&self) -> String {
        let names = match self.config.l {
            Some(l) => format!(" of variables with loop iteration < {l}"),
            None => String::new(),
        };
        let scope = if self.exhausted {
            format!(
                "for every variable set{names} of size <= {} and every c <= {}",
                self.config.v, self.config.c
            )
        } else {
            format!(
                "search stopped at v = {}, set {} of {}, c = {}, permutation {} of {}",
                self.v,
                self.set_index + 1,
                bounds::binomial(self.candidates.len() as u64, u64::from(self.v)).max(1.0),
                self.c,
                self.perm_index + 1,
                self.perms_needed
            )
        };
        format!(
            "exhaustive RankChecker ({scope}): every {}-thread ordering at each completed bound c (every order of every t + c of the n + c fragments) was run with probability >= {} (Lemma 4.1, epsilon = {}); {} executions, {} placements pruned by happens-before, {} distinct happens-before graphs",
            self.config.t,
            1.0 - self.config.epsilon,
            self.config.epsilon,
            self.executions,
            self.pruned_placements,
            self.graphs.len()
        )
    }

    fn start_search(&mut self) {
        self.candidates = self.profile.candidates();
        if let Some(l) = self.config.l {
            // Names with iteration >= l are out of bounds; among the rest, shared variables
            // first, then lower iteration numbers (the sort is stable: the profile's order
            // decides ties).
            self.candidates
                .retain(|&v| within_iteration_bound(v, Some(l)));
            let profile = &self.profile;
            self.candidates.sort_by_key(|&v| {
                let i = match v {
                    Variable::Field(id) => iteration(id),
                    Variable::Monitor(_) => 0,
                };
                (!profile.is_shared(v), i)
            });
        }
        // No variables known: only synchronization points, one empty set.
        self.sets_started = 0;
        self.start_size(u32::from(!self.candidates.is_empty()));
        if !self.own_set() {
            self.exhausted = true;
        }
    }

    /// Whether this part runs the current variable set.
    fn owns_set(&self) -> bool {
        self.partition
            .is_none_or(|part| part.owns(self.sets_started - 1))
    }

    /// Moves on until this part owns the current variable set; false when none is left.
    fn own_set(&mut self) -> bool {
        while !self.owns_set() {
            if !self.next_set() {
                return false;
            }
        }
        true
    }

    /// Starts the next variable set, of this size or else of the next; false when none is left.
    fn next_set(&mut self) -> bool {
        if next_combination(&mut self.combo, self.candidates.len()) {
            self.set_index += 1;
            self.start_set();
            return true;
        }
        if self.v < self.config.v && (self.v as usize) < self.candidates.len() {
            self.start_size(self.v + 1);
            return true;
        }
        false
    }

    /// Starts the sets of size `v` (`0`: the single empty set).
    fn start_size(&mut self, v: u32) {
        self.v = v.max(1);
        self.combo = (0..v as usize).collect();
        self.set_index = 0;
        self.start_set();
    }

    fn start_set(&mut self) {
        self.sets_started += 1;
        self.in_set = 0;
        self.set = self.combo.iter().map(|&i| self.candidates[i]).collect();
        self.visited.clear();
        self.claimed.clear();
        self.c = 0;
        self.start_bound();
    }

    fn start_bound(&mut self) {
        let f = self.n() + self.c;
        self.perms_needed = bounds::permutations_needed(
            f,
            subset_size(self.config.t, self.c, f),
            self.config.epsilon,
        )
        .unwrap_or(1);
        self.perm_index = 0;
        self.start_permutation();
    }

    fn start_permutation(&mut self) {
        let mut rng = SeededRandom::for_execution(
            self.config.seed ^ 0x5eed_0fa1_9000_0001,
            hb::mix_all([
                self.v.into(),
                self.set_index,
                self.c.into(),
                self.perm_index,
            ]),
        );
        self.perm = FragmentPermutation::draw(self.n(), self.c, &mut rng);
        self.frontier.clear();
        self.active = Placement {
            decisions: Vec::new(),
        };
    }

    /// Moves to the next placement / permutation / bound / set / size; false when done.
    fn advance(&mut self) -> bool {
        if let Some(p) = self.frontier.pop() {
            self.active = p;
            return true;
        }
        if self.perm_index + 1 < self.perms_needed {
            self.perm_index += 1;
            self.start_permutation();
            return true;
        }
        if self.c < self.config.c {
            self.c += 1;
            self.start_bound();
            return true;
        }
        if self.next_set() && self.own_set() {
            return true;
        }
        self.exhausted = true;
        false
    }

    fn state_key(&self, hash: u64, priorities: u64, fired: u32) -> u64 {
        // The permutation's unused change priorities shape the subtree too.
        let rest =
            (fired + 1..=self.c).map(|k| u64::from(self.perm.change_priority(k).unwrap_or(0)));
        hb::mix_all([hash, priorities, u64::from(fired)].into_iter().chain(rest))
    }

    /// Processes new events: counts tracked accesses (decision points), fires replayed change
    /// points, and at the frontier queues "fire here" alternatives.
    fn observe(&mut self, events: &[crate::Event]) {
        while self.consumed < events.len() {
            let e = events[self.consumed];
            self.consumed += 1;
            let (label, touch) = hb::event_touches(&e);
            self.hb.record(e.thread.0, label, touch.as_slice());
            let tracked = Variable::of(&e).is_some_and(|v| self.set.contains(&v));
            if !tracked {
                continue;
            }
            self.points += 1;
            let j = self.points;
            if j <= self.active.last_point() {
                if self.active.choice_at(j) == 1 {
                    self.fire(e.thread);
                }
                if j == self.active.last_point() {
                    self.take_own_state(self.hb.hash());
                }
                continue;
            }
            if !self.at_new_state(self.hb.hash()) || self.fired >= self.c {
                continue;
            }
            let mut alt = self.priorities.clone();
            let p = self.perm.change_priority(self.fired + 1).unwrap_or(0);
            alt.set(e.thread, f64::from(p));
            let key = self.state_key(self.hb.hash(), alt.fingerprint(), self.fired + 1);
            self.queue(key, self.active.with(j, 1));
        }
    }

    /// The state this placement was queued for (reached at its last decision) is ours.
    fn take_own_state(&mut self, hash: u64) {
        let key = self.state_key(hash, self.priorities.fingerprint(), self.fired);
        self.claimed.remove(&key);
        self.visited.insert(key);
    }

    /// At a frontier decision point: registers the state; false if it was explored before (then
    /// this execution stops branching).
    fn at_new_state(&mut self, hash: u64) -> bool {
        if self.stop_branching {
            return false;
        }
        if !self.config.prune {
            return true;
        }
        let here = self.state_key(hash, self.priorities.fingerprint(), self.fired);
        if self.visited.contains(&here) || self.claimed.contains(&here) {
            self.stop_branching = true;
            return false;
        }
        self.visited.insert(here);
        true
    }

    fn queue(&mut self, key: u64, placement: Placement) {
        if !self.config.prune {
            self.frontier.push(placement);
        } else if self.visited.contains(&key) || !self.claimed.insert(key) {
            self.pruned_placements += 1;
        } else {
            self.frontier.push(placement);
        }
    }

    fn fire(&mut self, t: ThreadId) {
        self.fired += 1;
        if let Some(p) = self.perm.change_priority(self.fired) {
            self.priorities.set(t, f64::from(p));
        }
    }
}

impl Strategy for RankCheckerExhaustive {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.config.seed, index);
        self.hb.reset();
        self.consumed = 0;
        self.points = 0;
        self.fired = 0;
        self.stop_branching = false;
        self.stopped = false;
        if self.learning_left > 0 {
            let n = self.n();
            let perm = FragmentPermutation::draw(n, 0, &mut self.rng);
            self.priorities
                .reset(perm.initial(), 0.5, f64::from(n) + 0.5);
        } else {
            // Unforeseen threads draw from a source fixed per permutation, so a placement
            // replays the same schedule whatever the execution index.
            self.rng = SeededRandom::for_execution(
                self.config.seed,
                hb::mix_all([
                    self.v.into(),
                    self.set_index,
                    self.c.into(),
                    self.perm_index,
                ]),
            );
            let f = self.n() + self.c;
            self.priorities
                .reset(self.perm.initial(), 0.5, f64::from(f) + 0.5);
        }
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        if self.learning_left > 0 {
            return Ok(self.priorities.pick(view, &mut self.rng, |_| true));
        }
        self.observe(view.events);
        if self.stop_branching && self.config.prune {
            // The rest of this execution repeats an explored state: end it here.
            self.stopped = true;
            return Err(Stop::Pruned);
        }
        let tracked = &self.set;
        Ok(self
            .priorities
            .pick(view, &mut self.rng, |op| is_tracked_point(op, tracked)))
    }

    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        if self.learning_left > 0 {
            return Ok(waiters[self.rng.index(waiters.len())]);
        }
        // Which waiter wakes is a free decision point of the tree (no change point spent).
        self.points += 1;
        let j = self.points;
        let woken_key = |w: ThreadId| (w, [(hb::monitor_key(obj.0), hb::Mode::Write)]);
        let chosen = if j <= self.active.last_point() {
            let i = self.active.choice_at(j) as usize;
            waiters.get(i).copied().unwrap_or(waiters[0])
        } else {
            let base = self.hb.hash();
            if self.at_new_state(base ^ WAITER_POINT) {
                for (i, &w) in waiters.iter().enumerate().skip(1) {
                    let (t, touch) = woken_key(w);
                    let after = self.hb.hash_after(t.0, hb::WOKEN_LABEL, &touch);
                    let key = self.state_key(after, self.priorities.fingerprint(), self.fired);
                    self.queue(key, self.active.with(j, i as u32));
                }
            }
            waiters[0]
        };
        self.hb.record_woken(chosen, obj.0);
        if j == self.active.last_point() {
            self.take_own_state(self.hb.hash());
        }
        Ok(chosen)
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        if self.learning_left > 0 {
            let run = self.config.preparatory_runs.max(1) - self.learning_left;
            self.last_key = self.partition.map(|_| vec![0, u64::from(run)]);
            self.profile.learn(summary.events, summary.threads);
            self.learning_left -= 1;
            if self.learning_left == 0 {
                self.start_search();
            }
            return !self.exhausted;
        }
        self.observe(summary.events);
        if !self.stopped {
            self.graphs.insert(self.hb.hash());
        }
        self.executions += 1;
        self.last_key = self
            .partition
            .map(|_| vec![1, self.sets_started - 1, self.in_set]);
        self.in_set += 1;
        self.advance()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{self, Cmp, Ins, Program, Val};
    use crate::strategy::pctvb::VarProfile;
    use crate::{Config, Execution};

    #[test]
    fn names_carry_their_iteration_and_are_never_unknown() {
        for i in 0..40u64 {
            let var = named_var(u64::MAX, i);
            assert_ne!(var, VarId::UNKNOWN);
            assert_eq!(iteration(var), i.min(u64::from(MAX_ITERATION)) as u32);
        }
        assert_ne!(named_var(7, 0), named_var(8, 0));
        assert_eq!(iteration(VarId::UNKNOWN), 0);
        let late = Variable::Field(named_var(3, 2));
        assert!(!within_iteration_bound(late, Some(2)));
        assert!(within_iteration_bound(late, Some(3)));
        assert!(within_iteration_bound(late, None));
        assert!(within_iteration_bound(Variable::Monitor(ObjId(1)), Some(1)));
    }

    /// Two cells allocated in one loop: cell 0 (iteration 0) is only touched under a lock,
    /// cell 1 (iteration 1) is incremented without one. The lost update needs a preemption at
    /// cell 1, so the exhaustive search finds it with l = 2 and exhausts without it at l = 1.
    fn loop_cells() -> Program {
        // Hash 0 keeps the ids small (the simulator indexes its variables by id).
        let cell0 = named_var(0, 0).0;
        let cell1 = named_var(0, 1).0;
        let worker = vec![
            Ins::Lock(0),
            Ins::Read { var: cell0, reg: 0 },
            Ins::Write {
                var: cell0,
                val: Val::RegPlus(0, 1),
            },
            Ins::Unlock(0),
            Ins::Read { var: cell1, reg: 1 },
            Ins::Write {
                var: cell1,
                val: Val::RegPlus(1, 1),
            },
        ];
        let main = vec![
            Ins::Start(1),
            Ins::Start(2),
            Ins::Join(1),
            Ins::Join(2),
            Ins::Read { var: cell1, reg: 0 },
            Ins::Assert {
                reg: 0,
                cmp: Cmp::Eq,
                val: Val::Const(2),
                msg: "lost update on cell 1",
            },
        ];
        Program {
            name: "loop-cells",
            vars: vec![0; cell1.max(cell0) as usize + 1],
            bodies: vec![main, worker.clone(), worker],
        }
    }

    /// Runs the exhaustive search with bound `l` to its end: `Some(executions)` at the first
    /// bug, `None` when it exhausted without one.
    fn exhaustive_with_l(program: &Program, l: Option<u32>) -> Option<u64> {
        let config = RankCheckerConfig {
            c: 1,
            v: 1,
            t: 2,
            threads: 3,
            l,
            ..RankCheckerConfig::default()
        };
        let mut exec = Execution::new(Config::default(), RankCheckerExhaustive::new(config));
        for executions in 1..20_000 {
            let outcome = sim::run_execution(&mut exec, program).unwrap();
            if outcome.is_bug() {
                return Some(executions);
            }
            if !exec.finish(false).unwrap() {
                assert!(exec.strategy().exhausted());
                return None;
            }
            exec.restart().unwrap();
        }
        panic!("the search did not end");
    }

    #[test]
    fn loop_iteration_bound_limits_the_exhaustive_search_to_early_iterations() {
        let program = loop_cells();
        assert_eq!(exhaustive_with_l(&program, Some(1)), None);
        assert!(exhaustive_with_l(&program, Some(2)).is_some());
        assert!(exhaustive_with_l(&program, None).is_some());
        // Cell 1 admitted: it comes after cell 0 (both shared), so l = 2 runs l = 1's sets
        // first.
        let profile = VarProfile::supplied(
            [
                (Variable::Field(named_var(1, 1)), 2),
                (Variable::Field(named_var(1, 0)), 2),
            ],
            [],
        );
        let s = RankCheckerExhaustive::with_profile(
            RankCheckerConfig {
                l: Some(2),
                ..RankCheckerConfig::default()
            },
            profile,
        );
        assert_eq!(s.tracked(), [Variable::Field(named_var(1, 0))]);
    }

    #[test]
    fn combinations_come_in_colex_order_each_once() {
        let mut combo = vec![0, 1];
        let mut all = vec![combo.clone()];
        while next_combination(&mut combo, 4) {
            all.push(combo.clone());
        }
        assert_eq!(
            all,
            [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]].map(|c| c.to_vec())
        );
        let mut empty: Vec<usize> = Vec::new();
        assert!(!next_combination(&mut empty, 3));
    }
}
