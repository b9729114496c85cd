//! What the driver needs to know about each strategy name of docs/CLI.md: the bounds it
//! reads, and how its executions may be spread over JVMs without changing which schedules run.

use crate::error::bad_input;

/// How a strategy's executions can be spread over JVMs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Execution `i` depends only on the seed and `i`, or on state learned within a fixed-size
    /// chunk of executions: chunks of [`CHUNK`] executions run in separate JVMs, in parallel.
    Chunks,
    /// A systematic enumeration whose state spans the whole session: one JVM.
    OneJvm,
}

/// Executions per JVM for [`Spread::Chunks`]. Fixed (never derived from `-j`), so that the same
/// options give the same schedules whatever the parallelism.
pub const CHUNK: u64 = 200;

/// One strategy the CLI offers.
#[derive(Clone, Copy, Debug)]
pub struct StrategyInfo {
    pub name: &'static str,
    /// The bounds (`c`, `v`, `t`, `d`, `l`) it reads.
    pub bounds: &'static [&'static str],
    pub spread: Spread,
    /// One line for `--help` and the README.
    pub about: &'static str,
}

/// Every strategy, in the order of docs/CLI.md.
pub const STRATEGIES: &[StrategyInfo] = &[
    StrategyInfo {
        name: "random",
        bounds: &[],
        spread: Spread::Chunks,
        about: "random walk: an enabled thread uniformly at random at every scheduling point",
    },
    StrategyInfo {
        name: "pct",
        bounds: &["d"],
        spread: Spread::Chunks,
        about: "PCT(d): random priorities, d-1 priority change points",
    },
    StrategyInfo {
        name: "pctvb",
        bounds: &["d", "v"],
        spread: Spread::Chunks,
        about: "PCTVB(d, v): PCT with change points at accesses to v chosen variables",
    },
    StrategyInfo {
        name: "rankchecker",
        bounds: &["c", "v", "t"],
        spread: Spread::Chunks,
        about: "RankChecker(c, v, t): thread-bounding permutations, change points at v variables",
    },
    StrategyInfo {
        name: "rankchecker-exhaustive",
        bounds: &["c", "v", "t", "l"],
        spread: Spread::OneJvm,
        about: "RankChecker's Algorithm 1: variable sets (names with loop iteration < l), c, permutations, HB pruning, in order",
    },
    StrategyInfo {
        name: "icb",
        bounds: &["c"],
        spread: Spread::OneJvm,
        about: "ICB (CHESS): every schedule with at most c preemptions, exhaustively",
    },
    StrategyInfo {
        name: "pos",
        bounds: &[],
        spread: Spread::Chunks,
        about: "POS: partial order sampling",
    },
    StrategyInfo {
        name: "pos-star",
        bounds: &[],
        spread: Spread::Chunks,
        about: "POS*: partial order sampling, reads do not race",
    },
    StrategyInfo {
        name: "scs",
        bounds: &[],
        spread: Spread::OneJvm,
        about: "SCS: speed-controlled scheduling over basis pairs and back-off levels",
    },
    StrategyInfo {
        name: "nonpreemptive",
        bounds: &[],
        spread: Spread::OneJvm,
        about: "the one schedule without preemptions (ICB's bound 0), at nearly native speed: a baseline",
    },
];

/// The default strategy of `rankcheck test` and `rankcheck run`: POS, because in the bundled
/// sweep (README, "Choosing the default strategy") it was the only strategy that found all 23
/// contest-bench bugs, each within 20 executions on average over 5 seeds; random walk was often
/// quicker but never found MergeSortBug.
pub const DEFAULT: &str = "pos";

/// The strategy named `name`, or a one-line error listing the known ones.
pub fn lookup(name: &str) -> anyhow::Result<&'static StrategyInfo> {
    // `dfs` is the scheduler's plain depth-first search, kept for debugging; not advertised.
    const DFS: StrategyInfo = StrategyInfo {
        name: "dfs",
        bounds: &[],
        spread: Spread::OneJvm,
        about: "depth-first search of every schedule",
    };
    if name == "dfs" {
        return Ok(&DFS);
    }
    STRATEGIES.iter().find(|s| s.name == name).ok_or_else(|| {
        bad_input(format!(
            "unknown strategy {name:?} (known: {})",
            STRATEGIES
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Checks `strategy` with `bounds` the way the agent will build it
/// (`scheduler::strategy::from_name`): a bound out of range is bad input here, in one line,
/// rather than a JVM that fails to start. Returns the given bounds the strategy ignores.
pub fn check(
    strategy: &StrategyInfo,
    bounds: &Bounds,
    c_mode: Option<&str>,
) -> anyhow::Result<Vec<&'static str>> {
    let c_mode = match c_mode {
        Some(m) => m.parse().map_err(|e: String| bad_input(e))?,
        None => Default::default(),
    };
    let wanted = scheduler::strategy::Bounds {
        c_mode,
        ..bounds.to_scheduler()
    };
    if strategy.name == "dfs" {
        return Ok(bounds.unused_by(strategy));
    }
    scheduler::strategy::from_name(strategy.name, &wanted, 0)
        .map(|chosen| chosen.ignored)
        .map_err(|e| bad_input(e.to_string()))
}

/// Bounds given on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Bounds {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l: Option<u32>,
}

impl Bounds {
    /// The scheduler's form of these bounds (defaults for the rest).
    pub fn to_scheduler(self) -> scheduler::strategy::Bounds {
        scheduler::strategy::Bounds {
            c: self.c,
            v: self.v,
            t: self.t,
            d: self.d,
            l: self.l,
            ..Default::default()
        }
    }

    /// `(name, value)` of every bound that was given.
    pub fn given(&self) -> Vec<(&'static str, u32)> {
        [
            ("c", self.c),
            ("v", self.v),
            ("t", self.t),
            ("d", self.d),
            ("l", self.l),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
    }

    /// The given bounds `strategy` does not read (accepted and ignored, said once).
    pub fn unused_by(&self, strategy: &StrategyInfo) -> Vec<&'static str> {
        self.given()
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| !strategy.bounds.contains(k))
            .collect()
    }

    /// Only the bounds `strategy` reads: what goes to the agent and into reports.
    pub fn used_by(&self, strategy: &StrategyInfo) -> Bounds {
        let keep = |k: &str, v: Option<u32>| v.filter(|_| strategy.bounds.contains(&k));
        Bounds {
            c: keep("c", self.c),
            v: keep("v", self.v),
            t: keep("t", self.t),
            d: keep("d", self.d),
            l: keep("l", self.l),
        }
    }

    /// `c=1 v=1 t=2`, or `-` when none.
    pub fn label(&self) -> String {
        let words: Vec<String> = self
            .given()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if words.is_empty() {
            "-".into()
        } else {
            words.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_strategy_is_bad_input_naming_the_known_ones() {
        let e = lookup("fastest").unwrap_err();
        let bad = e.downcast_ref::<crate::error::BadInput>().unwrap();
        assert!(
            bad.0.contains("\"fastest\"") && bad.0.contains("rankchecker"),
            "{bad}"
        );
        assert_eq!(lookup("icb").unwrap().spread, Spread::OneJvm);
    }

    #[test]
    fn the_scheduler_checks_bounds_and_names_the_ignored_ones() {
        let b = Bounds {
            c: Some(1),
            d: Some(2),
            ..Bounds::default()
        };
        assert_eq!(check(lookup("icb").unwrap(), &b, None).unwrap(), vec!["d"]);
        let zero_v = Bounds {
            v: Some(0),
            ..Bounds::default()
        };
        assert!(check(lookup("rankchecker").unwrap(), &zero_v, None).is_err());
        assert!(check(lookup("rankchecker").unwrap(), &b, Some("sometimes")).is_err());
        // Every name the CLI offers is one the scheduler builds.
        for s in STRATEGIES {
            check(s, &Bounds::default(), Some("chess")).unwrap();
        }
    }

    #[test]
    fn unused_bounds_are_named_and_dropped() {
        let b = Bounds {
            c: Some(1),
            v: Some(2),
            d: Some(3),
            ..Bounds::default()
        };
        let icb = lookup("icb").unwrap();
        assert_eq!(b.unused_by(icb), vec!["v", "d"]);
        assert_eq!(b.used_by(icb).label(), "c=1");
        assert_eq!(Bounds::default().label(), "-");
    }
}
