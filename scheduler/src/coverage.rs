//! The coverage statement printed when no bug is found, for every strategy.
//!
//! What each search may claim:
//! - ICB, once a bound is exhausted: every schedule with `≤ c` preemptions over the instrumented
//!   scheduling points ran (CHESS, PLDI 2007);
//! - RankChecker: every relative order of every `t` of the `n + c` thread fragments was used with
//!   probability `≥ 1 − ε` after `m` executions (Lemma 4.1);
//! - PCT / PCTVB: their per-execution lower bound on hitting a depth-`d` bug;
//! - every strategy: how many distinct happens-before graphs (≈ distinct behaviours) it ran.
//!
//! [`Covering`] is the strategy trait plus that statement; [`CountGraphs`] adds the distinct
//! happens-before graph count to any strategy.

use crate::hb::HbTracker;
use crate::ids::{ObjId, ThreadId};
use crate::strategy::icb::Icb;
use crate::strategy::pctvb::{Pctvb, Variable};
use crate::strategy::pos::Pos;
use crate::strategy::rankchecker::{RankChecker, RankCheckerExhaustive};
use crate::strategy::scs::Scs;
use crate::strategy::{ExecutionSummary, Pct, Pick, RandomWalk, Stop, Strategy, View};
use std::collections::HashSet;

/// What one execution leaves out of an enumeration's claim beyond what its count says, merged
/// over JVMs and shards ([`Facts`](crate::session_coverage::Facts)) so that the statement of a
/// finished enumeration says how far it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shortfall {
    /// It left the prefix its enumeration gave it (nondeterminism rankcheck does not control):
    /// the alternatives behind that prefix may not have run.
    pub left_prefix: bool,
    /// Alternatives its expansion left out: prefixes the solver's bound cut, and a count of one
    /// when the expansion itself stopped (an execution too long, or with too many
    /// alternatives, to expand whole).
    pub undecided: u64,
    /// It had events whose order the enumeration keeps as recorded (MCR: wait/notify,
    /// park/unpark, interrupts), so their other orders were not tried.
    pub order_kept: bool,
}

/// A strategy that can say what its executions so far cover.
pub trait Covering: Strategy + Send {
    /// One line: what the executions so far guarantee.
    fn coverage(&self) -> String;
    /// Whether the strategy has nothing left to run (an exhaustive search finished).
    fn exhausted(&self) -> bool {
        false
    }
    /// The variable set the current execution tracks, for variable-bounding strategies (the
    /// caller may instrument only these; accesses to others are not switch points anyway).
    fn tracked(&self) -> Option<Vec<Variable>> {
        None
    }
    /// The state to hand to [`resume`](crate::strategy::by_name::resume) after a restart, for
    /// strategies whose progress is more than their seed and execution index.
    fn save(&self) -> Option<String> {
        None
    }
    /// The happens-before graph hash of the last execution, when the strategy computes it
    /// ([`CountGraphs`]): what a search merges over JVMs (crate::session_coverage).
    fn last_graph(&self) -> Option<u64> {
        None
    }
    /// For a partitioned search: the place of the execution that ended last in the order the
    /// unpartitioned search would run it (`strategy::icb::order`), by which a merge of the parts
    /// counts and numbers executions.
    fn order_key(&self) -> Option<Vec<u64>> {
        None
    }
    /// What the execution that ended last leaves out of the claim (nothing, by default).
    fn last_shortfall(&self) -> Shortfall {
        Shortfall::default()
    }
}

impl Covering for Icb {
    fn coverage(&self) -> String {
        Icb::coverage(self)
    }
    fn exhausted(&self) -> bool {
        Icb::exhausted(self)
    }
    fn save(&self) -> Option<String> {
        Some(self.to_text())
    }
    fn order_key(&self) -> Option<Vec<u64>> {
        self.last_order_key().map(<[u64]>::to_vec)
    }
}

impl Covering for crate::strategy::mcr::Mcr {
    fn coverage(&self) -> String {
        crate::strategy::mcr::Mcr::coverage(self)
    }
    fn exhausted(&self) -> bool {
        crate::strategy::mcr::Mcr::exhausted(self)
    }
    fn order_key(&self) -> Option<Vec<u64>> {
        self.last_order_key().map(<[u64]>::to_vec)
    }
    fn last_shortfall(&self) -> Shortfall {
        crate::strategy::mcr::Mcr::last_shortfall(self)
    }
}

impl Covering for RankChecker {
    fn coverage(&self) -> String {
        RankChecker::coverage(self)
    }
    fn tracked(&self) -> Option<Vec<Variable>> {
        Some(RankChecker::tracked(self).to_vec())
    }
}

impl Covering for RankCheckerExhaustive {
    fn coverage(&self) -> String {
        RankCheckerExhaustive::coverage(self)
    }
    fn exhausted(&self) -> bool {
        RankCheckerExhaustive::exhausted(self)
    }
    fn tracked(&self) -> Option<Vec<Variable>> {
        Some(RankCheckerExhaustive::tracked(self).to_vec())
    }
    fn order_key(&self) -> Option<Vec<u64>> {
        self.last_order_key().map(<[u64]>::to_vec)
    }
}

impl Covering for Pctvb {
    fn coverage(&self) -> String {
        match self.guarantee() {
            Some(p) => format!(
                "each execution hits a depth-d bug over the chosen variables with probability >= {p:.3e} (PCTVB, Theorem 3.1)"
            ),
            None => "PCTVB: variables not profiled yet, no guarantee".to_string(),
        }
    }
    fn tracked(&self) -> Option<Vec<Variable>> {
        Some(Pctvb::tracked(self).to_vec())
    }
}

impl Covering for Pct {
    fn coverage(&self) -> String {
        format!(
            "PCT: k = {} steps estimated; each execution hits a depth-d bug with probability >= 1/(n*k^(d-1))",
            self.steps_estimate()
        )
    }
    fn save(&self) -> Option<String> {
        Some(self.to_text())
    }
}

impl Covering for crate::strategy::surw::Surw {
    fn coverage(&self) -> String {
        "SURW: each execution samples the interleavings of the interesting events uniformly once \
         the threads' event counts are learned; no exhaustion claim"
            .into()
    }
}

impl Covering for crate::strategy::rff::Rff {
    fn coverage(&self) -> String {
        format!(
            "reads-from feedback: {} distinct reads-from pairs seen, {} executions in the corpus; \
             no exhaustion claim",
            self.pairs_seen(),
            self.corpus_len()
        )
    }
}

impl Covering for crate::strategy::NonPreemptive {
    fn coverage(&self) -> String {
        "non-preemptive: the one schedule without preemptions ran".into()
    }
    fn exhausted(&self) -> bool {
        self.executions() > 0
    }
}

/// A boxed strategy chosen at run time covers what it covers.
impl<C: Covering + ?Sized> Covering for Box<C> {
    fn coverage(&self) -> String {
        (**self).coverage()
    }
    fn exhausted(&self) -> bool {
        (**self).exhausted()
    }
    fn tracked(&self) -> Option<Vec<Variable>> {
        (**self).tracked()
    }
    fn save(&self) -> Option<String> {
        (**self).save()
    }
    fn last_graph(&self) -> Option<u64> {
        (**self).last_graph()
    }
    fn order_key(&self) -> Option<Vec<u64>> {
        (**self).order_key()
    }
    fn last_shortfall(&self) -> Shortfall {
        (**self).last_shortfall()
    }
}

/// A warm-up says what its replay says: the warm-up's executions are not the run's.
impl<S: Covering, R: Covering> Covering for crate::strategy::WarmUp<S, R> {
    fn coverage(&self) -> String {
        self.replay().coverage()
    }
    /// The search's variable set while it decides an execution, as in the search's JVM.
    fn tracked(&self) -> Option<Vec<Variable>> {
        match self.searching() {
            Some(search) => search.tracked(),
            None if self.warming_up() => None,
            None => self.replay().tracked(),
        }
    }
    fn last_graph(&self) -> Option<u64> {
        match self.searching() {
            Some(search) => search.last_graph(),
            None => self.replay().last_graph(),
        }
    }
}

impl Covering for RandomWalk {
    fn coverage(&self) -> String {
        "random walk: no guarantee beyond the executions run".to_string()
    }
}

impl Covering for Pos {
    fn coverage(&self) -> String {
        "POS: every partial order is sampled with positive probability (CAV 2018, Theorem 1); no exhaustion claim".to_string()
    }
}

impl Covering for Scs {
    fn coverage(&self) -> String {
        Scs::coverage(self)
    }
}

/// Wraps a strategy and counts the distinct happens-before graphs of the executions it ran.
#[derive(Debug)]
pub struct CountGraphs<S> {
    inner: S,
    graphs: HashSet<u64>,
    executions: u64,
    last: Option<u64>,
}

impl<S> CountGraphs<S> {
    /// Counts graphs around `inner`.
    pub fn new(inner: S) -> CountGraphs<S> {
        CountGraphs {
            inner,
            graphs: HashSet::new(),
            executions: 0,
            last: None,
        }
    }

    /// Distinct happens-before graphs so far.
    pub fn distinct_graphs(&self) -> usize {
        self.graphs.len()
    }

    /// Executions so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// The wrapped strategy.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Strategy> Strategy for CountGraphs<S> {
    fn begin_execution(&mut self, index: u64) {
        self.inner.begin_execution(index)
    }
    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.inner.pick(view)
    }
    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.inner.pick_waiter(obj, waiters)
    }
    fn offers_quiet_steps(&self) -> bool {
        self.inner.offers_quiet_steps()
    }
    fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
        self.inner.quiet_steps(view)
    }
    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
        self.inner.skipped(thread, steps)
    }
    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        let mut hb = HbTracker::new();
        hb.sync(summary.events);
        let hash = hb.hash();
        self.graphs.insert(hash);
        self.last = Some(hash);
        self.executions += 1;
        self.inner.end_execution(summary)
    }
}

impl<S: Covering> Covering for CountGraphs<S> {
    fn coverage(&self) -> String {
        format!(
            "{}; {} executions ran {} distinct happens-before graphs",
            self.inner.coverage(),
            self.executions,
            self.graphs.len()
        )
    }
    fn exhausted(&self) -> bool {
        self.inner.exhausted()
    }
    fn tracked(&self) -> Option<Vec<Variable>> {
        self.inner.tracked()
    }
    fn save(&self) -> Option<String> {
        self.inner.save()
    }
    fn last_graph(&self) -> Option<u64> {
        self.last
    }
    fn order_key(&self) -> Option<Vec<u64>> {
        self.inner.order_key()
    }
    fn last_shortfall(&self) -> Shortfall {
        self.inner.last_shortfall()
    }
}
