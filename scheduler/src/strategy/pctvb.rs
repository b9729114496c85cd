//! PCTVB — PCT with variable bounding (Bindal, Bansal, Lal, *Variable and Thread Bounding for
//! Systematic Testing of Multithreaded Programs*, §3, "Variable Bounding on Randomized
//! Algorithms", steps 0–3 and Theorem 3.1; restated in `ALGORITHMS.md`, "PCTVB").
//!
//! Per execution:
//! 0. choose `v` variables uniformly from the `N` candidates (variables seen shared — touched by
//!    two threads or more — first);
//! 1. give the threads distinct random priorities from `{d, …, d+n−1}` (PCT step 1);
//! 2. with `Kᵢ` bounding the accesses to variable `i` in one run, pick `d−1` distinct elements of
//!    `S = {(i, j) : 1 ≤ j ≤ Kᵢ}` uniformly as change points; change point `k` has priority `k`;
//! 3. strict priority scheduling; when the `j`-th access to variable `i` is performed and `(i, j)`
//!    is change point `k`, the performing thread's priority becomes `k`.
//!
//! Accesses to variables outside the chosen set are not preemption points (the running thread
//! keeps running there), which is what instrumenting only the chosen variables would give.
//!
//! The caller may supply the candidates and the `Kᵢ` ([`VarProfile::supplied`]); otherwise the
//! first executions are preparatory runs (random priorities, no change points) that learn them:
//! the variables accessed, which are shared, and the average access count of each.

use super::rankchecker::Priorities;
use crate::ids::{ObjId, ThreadId, VarId};
use crate::rng::{RandomSource, SeededRandom};
use crate::strategy::{ExecutionSummary, Pick, Strategy, View};
use crate::Event;
use crate::OpKind;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A variable in the variable-bounding sense: a field variable named by the agent (static field
/// or allocation site), or a monitor (RankChecker §1: the variables "may include
/// synchronization operations"; a monitor's accesses are its `monitorenter`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variable {
    Field(VarId),
    Monitor(ObjId),
}

impl Variable {
    /// The variable a performed event accesses, if it counts as an access of one.
    pub fn of(e: &Event) -> Option<Variable> {
        if e.is_access() && e.var != VarId::UNKNOWN {
            Some(Variable::Field(e.var))
        } else if e.kind == OpKind::MonitorEnter {
            Some(Variable::Monitor(ObjId(e.target)))
        } else {
            None
        }
    }
}

/// What is known about the program's variables: the candidates and their access bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VarProfile {
    /// Per variable: total accesses over the profiled runs, and the threads that touched it.
    stats: BTreeMap<Variable, (u64, BTreeSet<u32>)>,
    /// Profiled runs (averages divide by this).
    runs: u64,
    /// Caller-supplied `Kᵢ` (override the learned averages).
    supplied_k: BTreeMap<Variable, u64>,
    /// Caller-supplied shared variables.
    supplied_shared: BTreeSet<Variable>,
    /// Whether the caller supplied the candidates (then no learning is needed).
    supplied: bool,
    /// Most threads seen in one run.
    max_threads: u32,
}

impl VarProfile {
    /// A profile from the caller: each candidate with its access bound `Kᵢ`, and which of them
    /// are known to be shared (searched first).
    pub fn supplied(
        candidates: impl IntoIterator<Item = (Variable, u64)>,
        shared: impl IntoIterator<Item = Variable>,
    ) -> VarProfile {
        let supplied_k: BTreeMap<Variable, u64> = candidates.into_iter().collect();
        let stats = supplied_k
            .keys()
            .map(|&v| (v, (0, BTreeSet::new())))
            .collect();
        VarProfile {
            stats,
            supplied_k,
            supplied_shared: shared.into_iter().collect(),
            supplied: true,
            ..VarProfile::default()
        }
    }

    /// Whether candidates are known (supplied, or learned from at least one run).
    pub fn is_known(&self) -> bool {
        self.supplied || self.runs > 0
    }

    /// Adds one run's events.
    pub fn learn(&mut self, events: &[Event], threads: u32) {
        self.runs += 1;
        self.max_threads = self.max_threads.max(threads);
        for e in events {
            let Some(var) = Variable::of(e) else {
                continue;
            };
            let entry = self.stats.entry(var).or_default();
            entry.0 += 1;
            entry.1.insert(e.thread.0);
        }
    }

    /// Most threads seen in one profiled run (0 if none).
    pub fn max_threads(&self) -> u32 {
        self.max_threads
    }

    /// Whether `var` is shared (supplied as such, or touched by two threads in a profiled run).
    pub fn is_shared(&self, var: Variable) -> bool {
        self.supplied_shared.contains(&var)
            || self.stats.get(&var).is_some_and(|(_, t)| t.len() >= 2)
    }

    /// The candidates, shared ones first (each group in id order).
    pub fn candidates(&self) -> Vec<Variable> {
        let (mut shared, other): (Vec<Variable>, Vec<Variable>) =
            self.stats.keys().partition(|&&v| self.is_shared(v));
        shared.extend(other);
        shared
    }

    /// Number of shared candidates.
    pub fn shared_count(&self) -> usize {
        self.stats.keys().filter(|&&v| self.is_shared(v)).count()
    }

    /// `Kᵢ`: the supplied bound, else the average accesses per profiled run (at least 1).
    pub fn k(&self, var: Variable) -> u64 {
        if let Some(&k) = self.supplied_k.get(&var) {
            return k.max(1);
        }
        match self.stats.get(&var) {
            Some((total, _)) if self.runs > 0 => total.div_ceil(self.runs).max(1),
            _ => 1,
        }
    }

    /// Chooses `v` variables: uniformly among the shared candidates if there are at least `v`,
    /// otherwise all shared ones plus a uniform choice among the rest.
    pub fn choose(&self, v: u32, rng: &mut impl RandomSource) -> Vec<Variable> {
        let all = self.candidates();
        let shared = self.shared_count();
        let v = (v as usize).min(all.len());
        let mut chosen = Vec::with_capacity(v);
        let (first, rest) = all.split_at(shared);
        let mut pool: Vec<Variable> = first.to_vec();
        if pool.len() < v {
            chosen.append(&mut pool);
            pool = rest.to_vec();
        }
        while chosen.len() < v && !pool.is_empty() {
            let i = rng.index(pool.len());
            chosen.push(pool.swap_remove(i));
        }
        chosen.sort();
        chosen
    }
}

/// Picks `count` distinct change points uniformly from `S = {(var, j) : 1 ≤ j ≤ K(var)}`;
/// returned as `(var, j) → change-point number (1-based, in the order drawn)`.
pub(crate) fn draw_change_points(
    vars: &[Variable],
    profile: &VarProfile,
    count: u32,
    rng: &mut impl RandomSource,
) -> HashMap<(Variable, u64), u32> {
    let total: u64 = vars.iter().map(|&v| profile.k(v)).sum();
    let count = u64::from(count).min(total);
    let mut points = HashMap::new();
    let mut drawn = BTreeSet::new();
    while (drawn.len() as u64) < count {
        let x = rng.below(total);
        if drawn.insert(x) {
            let mut rest = x;
            for &v in vars {
                let k = profile.k(v);
                if rest < k {
                    points.insert((v, rest + 1), drawn.len() as u32);
                    break;
                }
                rest -= k;
            }
        }
    }
    points
}

/// Settings of PCTVB.
#[derive(Clone, Debug)]
pub struct PctvbConfig {
    /// Bug depth `d` (`d − 1` change points).
    pub depth: u32,
    /// Variable bound `v`.
    pub vars: u32,
    /// Threads `n` expected (raised to what preparatory runs see).
    pub threads: u32,
    /// Preparatory runs when the profile is not supplied.
    pub preparatory_runs: u32,
    pub seed: u64,
}

/// PCT with variable bounding.
#[derive(Debug)]
pub struct Pctvb {
    config: PctvbConfig,
    profile: VarProfile,
    learning_left: u32,
    rng: SeededRandom,
    tracked: Vec<Variable>,
    change_points: HashMap<(Variable, u64), u32>,
    access_counts: HashMap<Variable, u64>,
    priorities: Priorities,
    consumed: usize,
    executions: u64,
}

impl Pctvb {
    /// PCTVB learning its candidates from preparatory runs.
    pub fn new(config: PctvbConfig) -> Pctvb {
        Pctvb::with_profile(config, VarProfile::default())
    }

    /// PCTVB with caller-supplied candidates and `Kᵢ` (no preparatory runs).
    pub fn with_profile(config: PctvbConfig, profile: VarProfile) -> Pctvb {
        let learning_left = if profile.is_known() {
            0
        } else {
            config.preparatory_runs.max(1)
        };
        Pctvb {
            rng: SeededRandom::for_execution(config.seed, 0),
            config,
            profile,
            learning_left,
            tracked: Vec::new(),
            change_points: HashMap::new(),
            access_counts: HashMap::new(),
            priorities: Priorities::default(),
            consumed: 0,
            executions: 0,
        }
    }

    /// The variables tracked in the current execution (empty during preparatory runs).
    pub fn tracked(&self) -> &[Variable] {
        &self.tracked
    }

    /// What is known about the variables.
    pub fn profile(&self) -> &VarProfile {
        &self.profile
    }

    /// Threads `n` assumed.
    fn n(&self) -> u32 {
        self.config.threads.max(self.profile.max_threads()).max(1)
    }

    /// The guarantee for a depth-`d` bug over `v` variables (Theorem 3.1 with the variable
    /// choice): `1 / (C(N, v) · n · (ΣKᵢ)^(d−1))`, with ΣKᵢ over the current variable set.
    pub fn guarantee(&self) -> Option<f64> {
        let n_vars = self.profile.candidates().len() as u64;
        let sum_k: u64 = self.tracked.iter().map(|&v| self.profile.k(v)).sum();
        crate::bounds::pctvb_probability(
            n_vars,
            self.config.vars,
            self.n(),
            sum_k,
            self.config.depth,
        )
        .ok()
    }
}

impl Strategy for Pctvb {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.config.seed, index);
        self.consumed = 0;
        self.access_counts.clear();
        let d = self.config.depth.max(1);
        let n = self.n();
        // PCT step 1: distinct random priorities from {d, …, d+n−1}.
        let mut values: Vec<f64> = (0..n).map(|i| f64::from(d + i)).collect();
        shuffle(&mut values, &mut self.rng);
        self.priorities
            .reset(values, f64::from(d), f64::from(d + n));
        if self.learning_left > 0 {
            self.tracked.clear();
            self.change_points.clear();
        } else {
            self.tracked = self.profile.choose(self.config.vars, &mut self.rng);
            self.change_points =
                draw_change_points(&self.tracked, &self.profile, d - 1, &mut self.rng);
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
                    // PCT: change point k lowers the thread to priority k (below every
                    // initial priority, which start at d).
                    self.priorities.set(e.thread, f64::from(k));
                }
            }
        }
        let learning = self.learning_left > 0;
        let tracked = &self.tracked;
        Ok(self.priorities.pick(view, &mut self.rng, |op| {
            learning || super::rankchecker::is_tracked_point(op, tracked)
        }))
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        Ok(waiters[self.rng.index(waiters.len())])
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.executions += 1;
        if self.learning_left > 0 {
            self.profile.learn(summary.events, summary.threads);
            self.learning_left -= 1;
        }
        true
    }
}

/// Fisher–Yates with the project's random source.
pub(crate) fn shuffle<T>(items: &mut [T], rng: &mut impl RandomSource) {
    for i in (1..items.len()).rev() {
        let j = rng.index(i + 1);
        items.swap(i, j);
    }
}
