//! The driver's view of the strategies: which one a name means (`scheduler::strategy`
//! knows them all, [`StrategyInfo`]), how its executions may be spread over JVMs without
//! changing which schedules run, and the bounds given on the command line.

use crate::error::bad_input;
pub use scheduler::strategy::{StrategyInfo, DEFAULT};

/// How a strategy's executions can be spread over JVMs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Execution `i` depends only on the seed and `i`, or on state learned within a fixed-size
    /// chunk of executions: chunks of [`CHUNK`] executions run in separate JVMs, in parallel.
    Chunks,
    /// A systematic enumeration whose state spans the whole session: one JVM.
    OneJvm,
}

impl Spread {
    /// How `strategy`'s executions can be spread.
    pub fn of(strategy: &StrategyInfo) -> Spread {
        if strategy.session_state {
            Spread::OneJvm
        } else {
            Spread::Chunks
        }
    }
}

/// Executions per JVM for [`Spread::Chunks`]. Fixed (never derived from `-j`), so that the same
/// options give the same schedules whatever the parallelism.
pub const CHUNK: u64 = 200;

/// The strategy named `name`, or a one-line error listing the known ones.
pub fn lookup(name: &str) -> anyhow::Result<&'static StrategyInfo> {
    scheduler::strategy::info(name).ok_or_else(|| {
        bad_input(format!(
            "unknown strategy {name:?} (known: {})",
            scheduler::strategy::NAMES.join(", ")
        ))
    })
}

/// The strategies of a comma-separated flag (`--strategies`), each known, at least one.
pub fn lookup_list(names: &[String]) -> anyhow::Result<Vec<&'static StrategyInfo>> {
    let list = names
        .iter()
        .map(|s| lookup(s.trim()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if list.is_empty() {
        return Err(bad_input("--strategies is empty"));
    }
    Ok(list)
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
    scheduler::strategy::from_name(strategy.name, &wanted, 0)
        .map(|chosen| chosen.ignored)
        .map_err(|e| bad_input(e.to_string()))
}

/// Bounds given on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
            .filter(|k| !strategy.bounds_used.contains(k))
            .collect()
    }

    /// Only the bounds `strategy` reads: what goes to the agent and into reports.
    pub fn used_by(&self, strategy: &StrategyInfo) -> Bounds {
        let keep = |k: &str, v: Option<u32>| v.filter(|_| strategy.bounds_used.contains(&k));
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
        assert_eq!(Spread::of(lookup("icb").unwrap()), Spread::OneJvm);
        assert_eq!(Spread::of(lookup("pct").unwrap()), Spread::Chunks);
        assert!(lookup("dfs").is_err(), "the agent builds no dfs");
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
        for s in scheduler::strategy::STRATEGIES {
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
