//! Strategies by name, for the CLI and the agent: `from_name("rankchecker", &bounds, seed)`.
//!
//! Names: `random`, `pct`, `pctvb`, `rankchecker` (randomized), `rankchecker-exhaustive`
//! (Algorithm 1), `icb`, `mcr`, `pos`, `pos-star`, `scs`, `nonpreemptive`. Every bound is accepted for every strategy;
//! the ones a strategy does not use are listed in [`Chosen::ignored`] so the caller can say so
//! once. Every strategy but `nonpreemptive` comes wrapped in [`CountGraphs`], so its coverage
//! line ends with the number of distinct happens-before graphs it ran.

use crate::coverage::{CountGraphs, Covering};
use crate::strategy::icb::Icb;
use crate::strategy::mcr::{Mcr, DEFAULT_MAX_NODES};
use crate::strategy::partition::Partition;
use crate::strategy::pctvb::{Pctvb, PctvbConfig};
use crate::strategy::pos::Pos;
use crate::strategy::rankchecker::{CMode, RankChecker, RankCheckerConfig, RankCheckerExhaustive};
use crate::strategy::scs::{Scs, ScsConfig};
use crate::strategy::{Pct, PctConfig, RandomWalk};
use std::fmt;

/// `random`: a random walk.
pub const RANDOM: &str = "random";
/// `pct`: PCT(d).
pub const PCT: &str = "pct";
/// `pctvb`: PCT with change points at accesses to v chosen variables.
pub const PCTVB: &str = "pctvb";
/// `rankchecker`: RankChecker, randomized.
pub const RANKCHECKER: &str = "rankchecker";
/// `rankchecker-exhaustive`: RankChecker's Algorithm 1.
pub const RANKCHECKER_EXHAUSTIVE: &str = "rankchecker-exhaustive";
/// `icb`: iterative context bounding (CHESS).
pub const ICB: &str = "icb";
/// `pos`: partial order sampling.
pub const POS: &str = "pos";
/// `pos-star`: POS*, reads do not race.
pub const POS_STAR: &str = "pos-star";
/// `scs`: speed-controlled scheduling.
pub const SCS: &str = "scs";
/// `nonpreemptive`: the one schedule without preemptions.
pub const NONPREEMPTIVE: &str = "nonpreemptive";
/// `surw`: selectively uniform random walk.
pub const SURW: &str = "surw";
/// `rff`: reads-from feedback over POS.
pub const RFF: &str = "rff";
/// `portfolio`: surw, pos, pct, rff and random, taking turns by execution.
pub const PORTFOLIO: &str = "portfolio";
/// `mcr`: maximal causality reduction over reads-from.
pub const MCR: &str = "mcr";

/// The default strategy of `rankcheck test` and `rankcheck run`: the portfolio. SURW alone had
/// the best geometric mean of executions to the bug over the bundled suites (README, "Choosing
/// the default strategy"), but on programs written after that measurement it missed bugs in
/// 5,000 executions that POS and PCT find in tens (a thread that must run a long stretch before
/// the other interferes: `tests/programs/WorkStealingDeque`, `tests/libprograms/GuavaLoaderCounter`
/// and `Pool2ReturnThenRead`); the portfolio takes at most five times its best member's count.
pub const DEFAULT: &str = PORTFOLIO;

/// What the CLI and the agent need to know of one strategy, besides building it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyInfo {
    pub name: &'static str,
    /// One line for `--help`, the README and tables.
    pub summary: &'static str,
    /// The bounds (`c`, `v`, `t`, `d`, `l`) it reads; [`Chosen::ignored`] names the others.
    pub bounds_used: &'static [&'static str],
    /// It enumerates every schedule within its bounds and ends by itself when done (a clean end
    /// is a statement about all of them), rather than sampling until a budget runs out.
    pub exhaustive: bool,
    /// Its state spans the whole search (an enumeration, or SCS's walk over basis pairs and
    /// back-off levels): execution `i` does not depend on the seed and `i` alone, so the
    /// executions cannot be spread over independent JVMs.
    pub session_state: bool,
    /// [`resume`] continues it from the state it saved (`Covering::save`) in another JVM.
    pub resumes: bool,
    /// Its enumeration splits into disjoint parts ([`Bounds::partition`]) that together run
    /// its schedules, so shards of a search can each run one.
    pub partitions: bool,
    /// It may switch threads at a data access. False only for `nonpreemptive`, which switches
    /// only where the running thread cannot go on: the agent may let accesses pass in Java
    /// (quiet stretches) and need not know which variable an access touches.
    pub switches_at_accesses: bool,
}

impl StrategyInfo {
    /// It bounds variables (reads `v`: pctvb, rankchecker, rankchecker-exhaustive): the agent
    /// names the variable of every access (allocation sites) for it.
    pub fn bounds_variables(&self) -> bool {
        self.bounds_used.contains(&"v")
    }
}

const fn sampling(
    name: &'static str,
    bounds_used: &'static [&'static str],
    summary: &'static str,
) -> StrategyInfo {
    StrategyInfo {
        name,
        summary,
        bounds_used,
        exhaustive: false,
        session_state: false,
        resumes: false,
        partitions: false,
        switches_at_accesses: true,
    }
}

/// Every strategy [`from_name`] builds, in the order the CLI lists them.
pub const STRATEGIES: &[StrategyInfo] = &[
    sampling(
        RANDOM,
        &[],
        "random walk: an enabled thread uniformly at random at every scheduling point",
    ),
    StrategyInfo {
        resumes: true,
        ..sampling(
            PCT,
            &["d"],
            "PCT(d): random priorities, d-1 priority change points",
        )
    },
    sampling(
        PCTVB,
        &["d", "v"],
        "PCTVB(d, v): PCT with change points at accesses to v chosen variables",
    ),
    sampling(
        RANKCHECKER,
        &["c", "v", "t"],
        "RankChecker(c, v, t): thread-bounding permutations, change points at v variables",
    ),
    StrategyInfo {
        exhaustive: true,
        session_state: true,
        partitions: true,
        ..sampling(
            RANKCHECKER_EXHAUSTIVE,
            &["c", "v", "t", "l"],
            "RankChecker's Algorithm 1: variable sets (names with loop iteration < l), c, \
             permutations, HB pruning, in order",
        )
    },
    StrategyInfo {
        exhaustive: true,
        session_state: true,
        resumes: true,
        partitions: true,
        ..sampling(
            ICB,
            &["c"],
            "ICB (CHESS): every schedule with at most c preemptions, exhaustively",
        )
    },
    StrategyInfo {
        exhaustive: true,
        session_state: true,
        partitions: true,
        ..sampling(
            MCR,
            &[],
            "MCR: one execution per reads-from combination, each prefix derived by a solver from \
             a recorded trace, until no read can see a new write",
        )
    },
    sampling(POS, &[], "POS: partial order sampling"),
    sampling(
        POS_STAR,
        &[],
        "POS*: partial order sampling, reads do not race",
    ),
    sampling(
        SURW,
        &[],
        "SURW: interleavings of the interesting events (accesses, locks, waits) sampled \
         uniformly, by each thread's events still to come",
    ),
    sampling(
        RFF,
        &[],
        "reads-from feedback: POS under constraints mutated from a corpus of executions that \
         saw new reads-from pairs",
    ),
    sampling(
        PORTFOLIO,
        &["d"],
        "portfolio: surw, pos, pct(d), rff and random take turns, execution k run by member k \
         mod 5",
    ),
    StrategyInfo {
        session_state: true,
        ..sampling(
            SCS,
            &[],
            "SCS: speed-controlled scheduling over basis pairs and back-off levels",
        )
    },
    StrategyInfo {
        session_state: true,
        switches_at_accesses: false,
        ..sampling(
            NONPREEMPTIVE,
            &[],
            "the one schedule without preemptions (ICB's bound 0), at nearly native speed: a \
             baseline",
        )
    },
];

/// Every strategy name [`from_name`] knows, in the order of [`STRATEGIES`].
pub const NAMES: &[&str] = &[
    RANDOM,
    PCT,
    PCTVB,
    RANKCHECKER,
    RANKCHECKER_EXHAUSTIVE,
    ICB,
    MCR,
    POS,
    POS_STAR,
    SURW,
    RFF,
    PORTFOLIO,
    SCS,
    NONPREEMPTIVE,
];

/// The strategy called `name`, if there is one.
pub fn info(name: &str) -> Option<&'static StrategyInfo> {
    STRATEGIES.iter().find(|s| s.name == name)
}

/// For the agent: may the strategy called `name` switch threads at a data access? False only
/// for `nonpreemptive` (the agent then opens quiet stretches and needs no variable names); an
/// unknown name answers true, the safe side.
pub fn switches_at_accesses(name: &str) -> bool {
    info(name).is_none_or(|s| s.switches_at_accesses)
}

/// For the agent: does the strategy called `name` bound variables (pctvb, rankchecker,
/// rankchecker-exhaustive), so that the agent must name the variable of every access (record
/// allocation sites)? An unknown name answers false.
pub fn bounds_variables(name: &str) -> bool {
    info(name).is_some_and(StrategyInfo::bounds_variables)
}

/// For reports: the member strategy that ran execution `index` of a search by the strategy
/// called `name`, when that strategy is made of members (`portfolio`); `None` otherwise.
pub fn member_of(name: &str, index: u64) -> Option<&'static str> {
    (name == PORTFOLIO).then(|| crate::strategy::portfolio::member_of(index))
}

/// The bounds given on the command line (`None`: not given, the strategy's default applies).
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    /// Context bound `c` (preemptions).
    pub c: Option<u32>,
    /// Variable bound `v`.
    pub v: Option<u32>,
    /// Thread bound `t`.
    pub t: Option<u32>,
    /// PCT depth `d`.
    pub d: Option<u32>,
    /// Loop-iteration bound `l`: the agent names heap variables by allocation site, stack and
    /// iteration number when it is given; the exhaustive RankChecker searches only names with
    /// iteration < l.
    pub l: Option<u32>,
    /// How `c` counts preemptions (RankChecker strategies).
    pub c_mode: CMode,
    /// Threads `n` expected (otherwise learned from preparatory runs).
    pub threads: Option<u32>,
    /// ε for Lemma 4.1 (default 0.01).
    pub epsilon: Option<f64>,
    /// ICB's happens-before pruning, MCR's skipping of a prefix whose constraints were queued
    /// before (RankChecker's exhaustive search always prunes). On by default.
    pub prune: bool,
    /// Run only this part of the search (a shard of it); only strategies whose
    /// [`StrategyInfo::partitions`] say so take one.
    pub partition: Option<Partition>,
}

impl Default for Bounds {
    /// Nothing given; pruning on.
    fn default() -> Bounds {
        Bounds {
            c: None,
            v: None,
            t: None,
            d: None,
            l: None,
            c_mode: CMode::default(),
            threads: None,
            epsilon: None,
            prune: true,
            partition: None,
        }
    }
}

/// The largest value any bound may take (far beyond what a search can finish, small enough that
/// no strategy allocates for it).
pub const MAX_BOUND: u32 = 1_000;

/// Default context bound.
pub const DEFAULT_C: u32 = 2;
/// Default variable bound.
pub const DEFAULT_V: u32 = 1;
/// Default thread bound.
pub const DEFAULT_T: u32 = 2;
/// Default PCT depth.
pub const DEFAULT_D: u32 = 3;

/// A strategy made by [`from_name`].
pub struct Chosen {
    pub strategy: Box<dyn Covering>,
    /// Names of the given bounds the strategy does not use (`"c"`, `"v"`, …).
    pub ignored: Vec<&'static str>,
}

impl fmt::Debug for Chosen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chosen")
            .field("coverage", &self.strategy.coverage())
            .field("ignored", &self.ignored)
            .finish()
    }
}

/// An unknown strategy name or an unusable bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChooseError {
    UnknownStrategy(String),
    BadBound(String),
    /// A saved state that cannot be resumed (wrong strategy, or unreadable).
    BadSaved(String),
}

impl fmt::Display for ChooseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChooseError::UnknownStrategy(name) => write!(
                f,
                "unknown strategy `{name}` (expected one of: {})",
                NAMES.join(", ")
            ),
            ChooseError::BadBound(m) | ChooseError::BadSaved(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for ChooseError {}

/// The strategy called `name` with `bounds`, seeded with `seed`.
pub fn from_name(name: &str, bounds: &Bounds, seed: u64) -> Result<Chosen, ChooseError> {
    let c = bounds.c.unwrap_or(DEFAULT_C);
    let v = bounds.v.unwrap_or(DEFAULT_V);
    let t = bounds.t.unwrap_or(DEFAULT_T);
    let d = bounds.d.unwrap_or(DEFAULT_D);
    let epsilon = bounds.epsilon.unwrap_or(0.01);
    if !(epsilon > 0.0 && epsilon < 1.0) {
        return Err(ChooseError::BadBound(format!(
            "epsilon must be in (0, 1), got {epsilon}"
        )));
    }
    for (name, value) in [
        ("c", bounds.c),
        ("v", bounds.v),
        ("t", bounds.t),
        ("d", bounds.d),
        ("l", bounds.l),
        ("threads", bounds.threads),
    ] {
        if let Some(x) = value.filter(|&x| x > MAX_BOUND) {
            return Err(ChooseError::BadBound(format!(
                "bound {name} = {x} is too large (at most {MAX_BOUND})"
            )));
        }
    }
    if bounds.d == Some(0) {
        return Err(ChooseError::BadBound(
            "the depth d must be at least 1".into(),
        ));
    }
    if bounds.v == Some(0) || bounds.t == Some(0) {
        return Err(ChooseError::BadBound(
            "the bounds v and t must be at least 1".into(),
        ));
    }
    let rankchecker = || RankCheckerConfig {
        c,
        v,
        t,
        threads: bounds.threads.unwrap_or(2),
        c_mode: bounds.c_mode,
        epsilon,
        preparatory_runs: 3,
        seed,
        prune: true,
        l: bounds.l,
    };
    fn boxed<S: Covering + 'static>(s: S) -> Box<dyn Covering> {
        Box::new(CountGraphs::new(s))
    }
    let strategy: Box<dyn Covering> = match name {
        RANDOM => boxed(RandomWalk::new(seed)),
        PCT => boxed(Pct::new(PctConfig {
            seed,
            depth: d,
            steps: None,
        })),
        PCTVB => boxed(Pctvb::new(PctvbConfig {
            depth: d,
            vars: v,
            threads: bounds.threads.unwrap_or(2),
            preparatory_runs: 3,
            seed,
        })),
        RANKCHECKER => boxed(RankChecker::new(rankchecker())),
        RANKCHECKER_EXHAUSTIVE => {
            boxed(RankCheckerExhaustive::new(rankchecker()).with_partition(bounds.partition))
        }
        ICB => boxed(Icb::new(c, bounds.prune).with_partition(bounds.partition)),
        MCR => boxed(Mcr::new(DEFAULT_MAX_NODES, bounds.prune).with_partition(bounds.partition)),
        POS => boxed(Pos::new(seed, false)),
        // One fixed schedule: no happens-before graphs to count (counting them costs a pass
        // over every event of what is often one very long execution).
        NONPREEMPTIVE => Box::new(crate::strategy::NonPreemptive::new()),
        POS_STAR => boxed(Pos::new(seed, true)),
        SURW => boxed(crate::strategy::surw::Surw::new(seed)),
        RFF => boxed(crate::strategy::rff::Rff::new(seed)),
        PORTFOLIO => boxed(crate::strategy::portfolio::Portfolio::new(seed, d)),
        SCS => boxed(Scs::new(ScsConfig {
            seed,
            ..ScsConfig::default()
        })),
        other => return Err(ChooseError::UnknownStrategy(other.to_string())),
    };
    if let Some(part) = bounds.partition {
        if !info(name).is_some_and(|s| s.partitions) {
            return Err(ChooseError::BadBound(format!(
                "strategy `{name}` cannot run a part ({part}) of its search: its state spans \
                 the whole search"
            )));
        }
    }
    let uses = info(name).map_or(&[][..], |s| s.bounds_used);
    let given = [
        ("c", bounds.c.is_some()),
        ("v", bounds.v.is_some()),
        ("t", bounds.t.is_some()),
        ("d", bounds.d.is_some()),
        ("l", bounds.l.is_some()),
    ];
    let ignored = given
        .iter()
        .filter(|(b, is_given)| *is_given && !uses.contains(b))
        .map(|(b, _)| *b)
        .collect();
    Ok(Chosen { strategy, ignored })
}

/// The strategy called `name`, continuing from `saved` (what [`Covering::save`] returned before
/// a restart). Only ICB keeps such state; the randomized strategies resume from their seed and the
/// execution index alone (`Execution::starting_at`).
pub fn resume(name: &str, bounds: &Bounds, seed: u64, saved: &str) -> Result<Chosen, ChooseError> {
    let mut chosen = from_name(name, bounds, seed)?;
    match name {
        ICB => {
            let icb = Icb::from_text(saved).map_err(|e| ChooseError::BadSaved(e.to_string()))?;
            chosen.strategy = Box::new(CountGraphs::new(icb));
            Ok(chosen)
        }
        PCT => {
            let config = PctConfig {
                seed,
                depth: bounds.d.unwrap_or(DEFAULT_D),
                steps: None,
            };
            let pct = Pct::from_text(config, saved).map_err(ChooseError::BadSaved)?;
            chosen.strategy = Box::new(CountGraphs::new(pct));
            Ok(chosen)
        }
        other => Err(ChooseError::BadSaved(format!(
            "strategy `{other}` keeps no state to resume: start it with the same seed at the next execution index"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_and_unknown_names_are_refused() {
        for name in NAMES {
            let chosen = from_name(name, &Bounds::default(), 1).unwrap();
            assert!(chosen.ignored.is_empty());
            assert!(!chosen.strategy.coverage().is_empty());
        }
        let err = from_name("chess", &Bounds::default(), 1).unwrap_err();
        assert!(
            err.to_string().contains("unknown strategy `chess`"),
            "{err}"
        );
        assert!(err.to_string().contains("rankchecker"));
    }

    #[test]
    fn the_table_and_the_names_agree() {
        let names: Vec<&str> = STRATEGIES.iter().map(|s| s.name).collect();
        assert_eq!(names, NAMES);
        for s in STRATEGIES {
            assert_eq!(info(s.name), Some(s));
            let keeps_none = matches!(
                resume(s.name, &Bounds::default(), 0, ""),
                Err(ChooseError::BadSaved(ref m)) if m.contains("keeps no state")
            );
            assert_eq!(s.resumes, !keeps_none, "{}", s.name);
        }
        assert!(info(DEFAULT).is_some());
        assert!(info("chess").is_none());
    }

    #[test]
    fn the_agent_queries() {
        let switching: Vec<&str> = NAMES
            .iter()
            .copied()
            .filter(|n| !switches_at_accesses(n))
            .collect();
        assert_eq!(switching, [NONPREEMPTIVE]);
        let bounding: Vec<&str> = NAMES
            .iter()
            .copied()
            .filter(|n| bounds_variables(n))
            .collect();
        assert_eq!(bounding, [PCTVB, RANKCHECKER, RANKCHECKER_EXHAUSTIVE]);
        assert!(switches_at_accesses("chess") && !bounds_variables("chess"));
    }

    #[test]
    fn unused_bounds_are_reported_as_ignored() {
        let bounds = Bounds {
            c: Some(1),
            v: Some(2),
            t: Some(3),
            d: Some(2),
            l: Some(1),
            ..Bounds::default()
        };
        assert_eq!(
            from_name("icb", &bounds, 0).unwrap().ignored,
            ["v", "t", "d", "l"]
        );
        assert_eq!(
            from_name("rankchecker", &bounds, 0).unwrap().ignored,
            ["d", "l"]
        );
        assert_eq!(
            from_name("rankchecker-exhaustive", &bounds, 0)
                .unwrap()
                .ignored,
            ["d"]
        );
        assert_eq!(
            from_name("pos", &bounds, 0).unwrap().ignored,
            ["c", "v", "t", "d", "l"]
        );
        assert_eq!(
            from_name("pct", &bounds, 0).unwrap().ignored,
            ["c", "v", "t", "l"]
        );
    }

    #[test]
    fn icb_resumes_from_its_saved_frontier() {
        let chosen = from_name("icb", &Bounds::default(), 0).unwrap();
        let saved = chosen.strategy.save().expect("ICB saves its frontier");
        let resumed = resume("icb", &Bounds::default(), 0, &saved).unwrap();
        assert_eq!(resumed.strategy.save().unwrap(), saved);
        assert!(matches!(
            resume("icb", &Bounds::default(), 0, "garbage"),
            Err(ChooseError::BadSaved(_))
        ));
        assert!(resume("pos", &Bounds::default(), 0, &saved).is_err());
    }

    #[test]
    fn bad_bounds_are_refused() {
        let bad = Bounds {
            d: Some(0),
            ..Bounds::default()
        };
        assert!(matches!(
            from_name("pct", &bad, 0),
            Err(ChooseError::BadBound(_))
        ));
        let huge = Bounds {
            c: Some(4_000_000_000),
            ..Bounds::default()
        };
        let err = from_name("rankchecker", &huge, 0).unwrap_err();
        assert!(err.to_string().contains("too large"), "{err}");
        let bad = Bounds {
            epsilon: Some(1.5),
            ..Bounds::default()
        };
        assert!(from_name("rankchecker", &bad, 0).is_err());
    }
}
