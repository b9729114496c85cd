//! Portfolio: several sampling strategies in one search, interleaved by execution.
//!
//! No one strategy is quickest on every bug (README, "Choosing the default strategy"): SURW is
//! quickest on most, POS and RFF on some, PCT on bugs of small depth among long runs, random
//! walk on shallow ones. A portfolio hedges: execution `k` runs member `k mod m`, as that
//! member's own execution `k / m`, so member `i`'s executions are the first ones the member
//! would run alone with the same seed. (The CLI runs a sampling search in JVMs of a fixed
//! number of executions, and a member that learns — SURW's event counts, PCT's step count,
//! RFF's corpus — starts afresh in each, as it does alone; in a portfolio each JVM holds fewer
//! of its executions, so from the second JVM on its schedules differ from its own search's.)
//! The choice is a function of `k` alone, so chunks
//! of executions spread over JVMs (`-j`) run the same schedules as one JVM, and the member that
//! ran an execution can be told from its index ([`member_of`]) without asking the strategy.
//!
//! Round robin rather than a bandit: a bandit's allocation depends on what earlier executions
//! found, which a chunk in another JVM does not know, and the budget a portfolio saves on one
//! bug it tends to lose on the next (a member that found new reads-from pairs is not the member
//! that finds the bug).

use super::api::{ExecutionSummary, Pick, Stop, Strategy, View};
use super::by_name::{PCT, POS, RANDOM, RFF, SURW};
use super::pos::Pos;
use super::rff::Rff;
use super::surw::Surw;
use super::{Pct, PctConfig, RandomWalk};
use crate::coverage::Covering;
use crate::ids::{ObjId, ThreadId};

/// The members, in the order executions cycle through them: SURW first (quickest on most
/// measured bugs), so a budget of one execution runs it.
pub const MEMBERS: &[&str] = &[SURW, POS, PCT, RFF, RANDOM];

/// The member that runs execution `index` of a portfolio search.
pub fn member_of(index: u64) -> &'static str {
    MEMBERS[(index % MEMBERS.len() as u64) as usize]
}

/// How many of the executions `0..executions` each member ran, in [`MEMBERS`] order.
pub fn executions_per_member(executions: u64) -> Vec<(&'static str, u64)> {
    let m = MEMBERS.len() as u64;
    MEMBERS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            (
                *name,
                executions / m + u64::from((i as u64) < executions % m),
            )
        })
        .collect()
}

/// The sampling statement of a portfolio search of `executions` executions, PCT at `depth`.
pub fn statement(executions: u64, depth: u32) -> String {
    let shares: Vec<String> = executions_per_member(executions)
        .iter()
        .map(|(name, n)| {
            if *name == PCT {
                format!("{name} (d={depth}) {n}")
            } else {
                format!("{name} {n}")
            }
        })
        .collect();
    format!(
        "portfolio: execution k ran member k mod {} ({}); each member samples its schedules as \
         it does alone (every schedule it can draw has a positive probability); no exhaustion \
         claim",
        MEMBERS.len(),
        shares.join(", ")
    )
}

/// The portfolio strategy.
pub struct Portfolio {
    members: Vec<Box<dyn Covering>>,
    depth: u32,
    /// The member running the current execution.
    current: usize,
    executions: u64,
}

impl Portfolio {
    /// The members of [`MEMBERS`], each seeded with `seed`; PCT with depth `depth`.
    pub fn new(seed: u64, depth: u32) -> Portfolio {
        let members: Vec<Box<dyn Covering>> = MEMBERS
            .iter()
            .map(|name| -> Box<dyn Covering> {
                match *name {
                    SURW => Box::new(Surw::new(seed)),
                    POS => Box::new(Pos::new(seed, false)),
                    PCT => Box::new(Pct::new(PctConfig {
                        seed,
                        depth,
                        steps: None,
                    })),
                    RFF => Box::new(Rff::new(seed)),
                    _ => Box::new(RandomWalk::new(seed)),
                }
            })
            .collect();
        Portfolio {
            members,
            depth,
            current: 0,
            executions: 0,
        }
    }

    /// Executions ended so far in this strategy value.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    fn member(&mut self) -> &mut dyn Covering {
        self.members[self.current].as_mut()
    }
}

impl Strategy for Portfolio {
    fn begin_execution(&mut self, index: u64) {
        let m = self.members.len() as u64;
        self.current = (index % m) as usize;
        self.member().begin_execution(index / m);
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.member().pick(view)
    }

    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.member().pick_waiter(obj, waiters)
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.executions += 1;
        let m = self.members.len() as u64;
        // The member learns from its own executions, numbered as it numbered them.
        let own = ExecutionSummary {
            index: summary.index / m,
            ..*summary
        };
        self.member().end_execution(&own);
        // A sampling search: the budget ends it, never a member.
        true
    }

    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
        self.member().skipped(thread, steps)
    }
}

impl Covering for Portfolio {
    fn coverage(&self) -> String {
        statement(self.executions, self.depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{programs, search};
    use crate::strategy::by_name::{from_name, Bounds};
    use crate::Config;

    #[test]
    fn executions_cycle_through_the_members() {
        assert_eq!(member_of(0), SURW);
        assert_eq!(member_of(1), POS);
        assert_eq!(member_of(7), PCT);
        let shares = executions_per_member(12);
        assert_eq!(shares.iter().map(|(_, n)| n).sum::<u64>(), 12);
        assert_eq!(shares[0], (SURW, 3));
        assert_eq!(shares[4], (RANDOM, 2));
        let said = statement(12, 3);
        for name in MEMBERS {
            assert!(said.contains(name), "{said}");
        }
        assert!(said.contains("pct (d=3) 2"), "{said}");
    }

    /// Member i's executions are the member's own first executions with the same seed: the
    /// schedules of portfolio execution `k` and of the member's execution `k / m` are equal.
    #[test]
    fn each_member_runs_its_own_executions_in_turn() {
        let program = programs::atomicity_violation(false);
        let m = MEMBERS.len() as u64;
        let mut exec = crate::Execution::new(Config::default(), Portfolio::new(9, 3));
        let mut runs = Vec::new();
        for _ in 0..3 * m {
            crate::sim::run_execution(&mut exec, &program).unwrap();
            runs.push(exec.schedule().clone());
            exec.finish(false).unwrap();
            exec.restart().unwrap();
        }
        assert_eq!(exec.strategy().executions(), 3 * m);
        for (i, name) in MEMBERS.iter().enumerate() {
            let alone = from_name(name, &Bounds::default(), 9).unwrap().strategy;
            let mut single = crate::Execution::new(Config::default(), alone);
            for j in 0..3 {
                crate::sim::run_execution(&mut single, &program).unwrap();
                assert_eq!(
                    single.schedule(),
                    &runs[(j * m) as usize + i],
                    "{name}: its execution {j} differs inside the portfolio"
                );
                single.finish(false).unwrap();
                single.restart().unwrap();
            }
        }
    }

    #[test]
    fn finds_every_simulated_bug_a_member_finds() {
        for case in programs::all().into_iter().filter(|c| !c.needs_spurious) {
            let anyone = MEMBERS.iter().any(|name| {
                let s = from_name(name, &Bounds::default(), 1).unwrap().strategy;
                let r = search(&case.buggy, Config::default(), s, 400, true).unwrap();
                r.first_bug.is_some()
            });
            if !anyone {
                continue;
            }
            let budget = 400 * MEMBERS.len() as u64;
            let run = || {
                search(
                    &case.buggy,
                    Config::default(),
                    Portfolio::new(1, 3),
                    budget,
                    true,
                )
            };
            let bug = run().unwrap().first_bug.expect(case.name);
            assert_eq!(
                run().unwrap().first_bug.map(|b| b.execution),
                Some(bug.execution),
                "{}: the same seed ran differently",
                case.name
            );
            let fixed = search(
                &case.fixed,
                Config::default(),
                Portfolio::new(1, 3),
                200,
                true,
            )
            .unwrap();
            assert!(fixed.first_bug.is_none(), "{}: fixed variant", case.name);
        }
    }
}
