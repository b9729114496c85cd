//! What a whole search covered, stated once for every way of running it.
//!
//! A search may run in one JVM or be spread over several (`-j`, fork mode, shards); each JVM
//! reports per-execution facts (threads, steps, the happens-before graph hash, whether the
//! strategy has exhausted its space). [`Facts`] merges them exactly (sums, maxima, unions), and
//! [`statement`] turns the merged facts into the one sentence the CLI prints. Because the
//! sentence depends only on the merged facts, the same search says the same thing at `-j 1` and
//! `-j 2`. Exhaustion is read from the strategy's own flag, never guessed from a count.
//!
//! The formulas are the ones the strategies use for themselves ([`rankchecker_claim`] is shared
//! with [`RankChecker::coverage`](crate::strategy::rankchecker::RankChecker::coverage)), with the
//! same defaults as [`from_name`](crate::strategy::from_name).

use crate::bounds;
use crate::coverage::Shortfall;
use crate::strategy::by_name::{
    Bounds, DEFAULT_C, DEFAULT_D, DEFAULT_T, DEFAULT_V, ICB, MCR, NONPREEMPTIVE, PCT, PORTFOLIO,
    POS, POS_STAR, RANKCHECKER, RANKCHECKER_EXHAUSTIVE, RFF, SCS, SURW,
};
use crate::strategy::rankchecker::subset_size;
use std::collections::BTreeSet;

/// Facts of the executions of one search, merged over every JVM that ran a part of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub executions: u64,
    /// Hashes of the executions' happens-before graphs, when every execution reported one.
    pub graphs: Option<BTreeSet<u64>>,
    /// The strategy said it has nothing left to explore.
    pub exhausted: bool,
    /// Most threads in one execution (PCT's and RankChecker's n).
    pub max_threads: u32,
    /// Most steps in one execution (PCT's k).
    pub max_steps: u64,
    /// Executions that left the prefix their enumeration gave them (nondeterminism the
    /// scheduler does not control): the subtrees behind them may be incomplete.
    pub diverged: u64,
    /// Alternatives the executions' expansions left out (`Shortfall::undecided`).
    pub undecided: u64,
    /// Some execution had events whose order the enumeration keeps as recorded.
    pub order_kept: bool,
}

impl Facts {
    /// Adds one execution: its thread and step counts, its graph hash (`None`: not reported),
    /// and whether the strategy said after it that it is exhausted.
    pub fn add(&mut self, threads: u32, steps: u64, graph: Option<u64>, exhausted: bool) {
        let first = self.executions == 0;
        self.executions += 1;
        self.max_threads = self.max_threads.max(threads);
        self.max_steps = self.max_steps.max(steps);
        self.exhausted |= exhausted;
        match (graph, first) {
            (Some(g), true) => self.graphs = Some(BTreeSet::from([g])),
            (Some(g), false) => {
                if let Some(set) = self.graphs.as_mut() {
                    set.insert(g);
                }
            }
            (None, _) => self.graphs = None,
        }
    }

    /// Adds one execution the strategy ended early because the rest of it was explored from
    /// the same state (ICB's pruning): its happens-before graph is of a prefix, not one more
    /// distinct graph.
    pub fn add_pruned(&mut self, threads: u32, steps: u64, exhausted: bool) {
        let first = self.executions == 0;
        let graphs = self.graphs.take();
        self.add(threads, steps, None, exhausted);
        self.graphs = if first { Some(BTreeSet::new()) } else { graphs };
    }

    /// Adds what the execution added last ([`Facts::add`]) leaves out of the claim.
    pub fn add_shortfall(&mut self, s: &Shortfall) {
        self.diverged += u64::from(s.left_prefix);
        self.undecided += s.undecided;
        self.order_kept |= s.order_kept;
    }

    /// Merges the facts of another part of the same search.
    pub fn merge(&mut self, other: &Facts) {
        if other.executions == 0 {
            return;
        }
        if self.executions == 0 {
            *self = other.clone();
            return;
        }
        self.executions += other.executions;
        self.diverged += other.diverged;
        self.undecided += other.undecided;
        self.order_kept |= other.order_kept;
        self.max_threads = self.max_threads.max(other.max_threads);
        self.max_steps = self.max_steps.max(other.max_steps);
        self.exhausted |= other.exhausted;
        self.graphs = match (self.graphs.take(), &other.graphs) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a)
            }
            _ => None,
        };
    }
}

/// RankChecker's Lemma 4.1 claim after `m` executions over `n` threads.
pub fn rankchecker_claim(n: u32, c: u32, t: u32, epsilon: f64, m: u64) -> String {
    let f = n + c;
    let subset = subset_size(t, c, f);
    let reached = 1.0 - bounds::permutation_miss_probability(f, subset, m);
    let needed = bounds::permutations_needed(f, subset, epsilon)
        .map_or_else(|e| format!("? ({e})"), |m| m.to_string());
    format!(
        "every relative order of every {subset} (= t + c) of the {f} thread fragments (n = {n}, \
         c = {c}) was used with probability >= {reached:.4} (Lemma 4.1) after {m} executions \
         ({needed} needed for epsilon = {epsilon}); variable sets and change points are random"
    )
}

/// MCR's claim: every reads-from combination once its worklist ran empty, as far as its
/// executions' shortfalls let it hold.
fn mcr_claim(facts: &Facts) -> String {
    if !facts.exhausted {
        return "MCR did not finish its worklist within the budget: no claim beyond the \
                executions run"
            .into();
    }
    let mut claim = if facts.undecided > 0 {
        format!(
            "MCR's worklist ran empty but its bounds left {} alternative(s) out (prefixes the \
             solver's bound cut; executions too long or with too many alternatives to expand \
             whole): not exhausted",
            facts.undecided
        )
    } else if facts.order_kept {
        "MCR explored every reads-from combination reachable under this input with \
         wait/notify, park/unpark and interrupts in their recorded order (a notify woke the \
         longest waiter): not exhausted, since other orders of those were not tried"
            .to_string()
    } else {
        "MCR explored every reads-from combination reachable under this input".to_string()
    };
    if facts.diverged > 0 {
        claim.push_str(&format!(
            "; {} execution(s) left the prefix they were given (nondeterminism rankcheck does \
             not control), so combinations behind them may not have run",
            facts.diverged
        ));
    }
    claim
}

/// The one sentence a search prints when it found no bug: what ran, and what the strategy
/// claims about it.
pub fn statement(strategy: &str, b: &Bounds, facts: &Facts) -> String {
    let mut parts = vec![format!("{} execution(s)", facts.executions)];
    match &facts.graphs {
        Some(g) => parts.push(format!("{} distinct happens-before graph(s)", g.len())),
        None => parts.push("distinct happens-before graphs not reported".into()),
    }
    let n = facts.max_threads.max(1);
    let k = facts.max_steps.max(1);
    let c = b.c.unwrap_or(DEFAULT_C);
    let claim = match strategy {
        ICB => {
            let what = if b.prune {
                "every happens-before-distinct schedule"
            } else {
                "every schedule"
            };
            let mut claim = if facts.exhausted {
                format!(
                    "ICB explored {what} with at most {c} preemption(s): no bug needs {c} or \
                     fewer preemptions at the instrumented scheduling points"
                )
            } else {
                format!(
                    "ICB did not finish {what} with at most {c} preemption(s) within the \
                     budget: no claim beyond the executions run"
                )
            };
            if facts.diverged > 0 {
                claim.push_str(&format!(
                    "; {} execution(s) left the prefix they were given (nondeterminism \
                     rankcheck does not control), so schedules behind them may not have run",
                    facts.diverged
                ));
            }
            claim
        }
        MCR => mcr_claim(facts),
        "dfs" if facts.exhausted => "depth-first search explored every schedule: the program has \
                                     no bug at the instrumented scheduling points"
            .into(),
        NONPREEMPTIVE if facts.exhausted => {
            "the one schedule without preemptions ran: no claim about any other interleaving".into()
        }
        SCS if facts.exhausted => {
            "SCS tried every speed vector of its basis pairs and back-off levels".into()
        }
        RANKCHECKER_EXHAUSTIVE if facts.exhausted => {
            let names = b.l.map_or(String::new(), |l| {
                format!(" of variables with loop iteration < {l}")
            });
            format!(
                "RankChecker's Algorithm 1 finished every variable set{names} of size <= {} and \
                 every c <= {c}: at each, every order of every t + c of the n + c thread \
                 fragments (t = {}) ran with probability >= {} (Lemma 4.1)",
                b.v.unwrap_or(DEFAULT_V),
                b.t.unwrap_or(DEFAULT_T),
                1.0 - b.epsilon.unwrap_or(0.01)
            )
        }
        RANKCHECKER_EXHAUSTIVE => "RankChecker's Algorithm 1 did not finish its variable sets \
                                   within the budget: no claim beyond the executions run"
            .into(),
        PCT => {
            let d = b.d.unwrap_or(DEFAULT_D);
            match bounds::pct_probability(n, k, d) {
                Ok(p) => format!(
                    "PCT(d={d}) with n={n} threads and k={k} steps: a bug of depth {d} is hit with \
                     probability >= {p:.3e} per execution, so it was missed with probability <= {:.3}",
                    miss(p, facts.executions)
                ),
                Err(e) => format!("no PCT bound ({e})"),
            }
        }
        RANKCHECKER => rankchecker_claim(
            n,
            c,
            b.t.unwrap_or(DEFAULT_T),
            b.epsilon.unwrap_or(0.01),
            facts.executions,
        ),
        POS | POS_STAR => "POS: every partial order is sampled with positive probability \
                               (CAV 2018, Theorem 1); no exhaustion claim"
            .into(),
        RFF => "reads-from feedback over POS: every partial order keeps a positive probability \
                (a quarter of the executions run plain POS); no exhaustion claim"
            .into(),
        SURW => "SURW: every interleaving of the interesting events has a positive probability \
                 (uniform once the threads' event counts are learned); no exhaustion claim"
            .into(),
        PORTFOLIO => {
            crate::strategy::portfolio::statement(facts.executions, b.d.unwrap_or(DEFAULT_D))
        }
        other => format!("{other} samples schedules: no guarantee beyond the executions run"),
    };
    parts.push(claim);
    parts.join("; ")
}

/// `(1 − p)^m`, computed in log space.
fn miss(p: f64, m: u64) -> f64 {
    if p >= 1.0 {
        return if m == 0 { 1.0 } else { 0.0 };
    }
    ((m as f64) * (-p).ln_1p()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(parts: &[(u32, u64, Option<u64>, bool)]) -> Facts {
        let mut f = Facts::default();
        for &(t, s, g, e) in parts {
            f.add(t, s, g, e);
        }
        f
    }

    #[test]
    fn pruned_executions_count_but_add_no_graph() {
        let mut f = facts(&[(2, 10, Some(1), false)]);
        f.add_pruned(2, 4, false);
        f.add(2, 10, Some(2), true);
        assert_eq!(f.executions, 3);
        assert_eq!(f.graphs, Some(BTreeSet::from([1, 2])));
        let b = Bounds {
            prune: true,
            ..Bounds::default()
        };
        let text = statement(ICB, &b, &f);
        assert!(text.starts_with("3 execution(s); 2 distinct"), "{text}");
        assert!(
            text.contains("every happens-before-distinct schedule"),
            "{text}"
        );
        f.diverged = 1;
        assert!(statement(ICB, &b, &f).contains("1 execution(s) left the prefix"));
    }

    #[test]
    fn merging_parts_gives_the_facts_of_the_whole() {
        let all = [
            (2, 10, Some(1), false),
            (3, 12, Some(2), false),
            (2, 10, Some(1), false),
            (4, 9, Some(3), false),
        ];
        let whole = facts(&all);
        let mut merged = facts(&all[..2]);
        merged.merge(&facts(&all[2..]));
        assert_eq!(merged, whole);
        assert_eq!(whole.graphs.as_ref().map(BTreeSet::len), Some(3));
        let b = Bounds::default();
        for s in ["pct", "rankchecker", "random", "pos", "icb"] {
            assert_eq!(statement(s, &b, &merged), statement(s, &b, &whole), "{s}");
        }
    }

    #[test]
    fn a_part_without_graphs_makes_the_count_unknown() {
        let mut a = facts(&[(2, 10, Some(1), false)]);
        a.merge(&facts(&[(2, 10, None, false)]));
        assert_eq!(a.graphs, None);
    }

    #[test]
    fn icb_claims_only_when_exhausted() {
        let b = Bounds {
            c: Some(1),
            ..Bounds::default()
        };
        let mut f = facts(&[(2, 5, None, false)]);
        assert!(statement("icb", &b, &f).contains("did not finish"));
        f.add(2, 5, None, true);
        assert!(statement("icb", &b, &f).contains("no bug needs 1 or fewer"));
    }

    #[test]
    fn mcr_claims_every_combination_only_without_shortfalls() {
        let b = Bounds::default();
        let mut f = facts(&[(2, 5, None, false)]);
        assert!(statement(MCR, &b, &f).contains("did not finish its worklist"));
        f.add(2, 5, None, true);
        assert!(statement(MCR, &b, &f)
            .ends_with("every reads-from combination reachable under this input"));
        let mut kept = f.clone();
        kept.add_shortfall(&Shortfall {
            order_kept: true,
            ..Shortfall::default()
        });
        assert!(statement(MCR, &b, &kept).contains("recorded order"));
        let mut cut = f.clone();
        cut.add_shortfall(&Shortfall {
            undecided: 2,
            left_prefix: true,
            ..Shortfall::default()
        });
        let text = statement(MCR, &b, &cut);
        assert!(text.contains("left 2 alternative(s) out"), "{text}");
        assert!(text.contains("1 execution(s) left the prefix"), "{text}");
        // Merged parts keep every part's shortfall.
        let mut merged = f.clone();
        merged.merge(&cut);
        assert_eq!((merged.undecided, merged.diverged), (2, 1));
    }

    #[test]
    fn pct_miss_probability_falls_with_executions() {
        let b = Bounds {
            d: Some(2),
            ..Bounds::default()
        };
        // p = 1/(2*10) = 0.05; after 100 executions the miss bound is 0.95^100 = 0.006.
        let mut f = Facts::default();
        for _ in 0..100 {
            f.add(2, 10, None, false);
        }
        assert!(statement("pct", &b, &f).contains("<= 0.006"));
    }

    #[test]
    fn rankchecker_uses_the_strategys_defaults_and_subsets_of_t_plus_c() {
        let f = facts(&[(3, 10, None, false)]);
        let text = statement("rankchecker", &Bounds::default(), &f);
        // n = 3, c = DEFAULT_C = 2: 5 fragments, subsets of t + c = 4.
        assert!(
            text.contains("every 4 (= t + c) of the 5 thread fragments"),
            "{text}"
        );
    }
}
