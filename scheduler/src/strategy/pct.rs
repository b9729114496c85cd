//! PCT, probabilistic concurrency testing — Burckhardt, Kothari, Musuvathi, Nagarakatte,
//! *A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs*, ASPLOS 2010, §3
//! (ALGORITHMS.md, "PCT").
//!
//! Per execution:
//! 1. Every thread gets a random initial priority when it first appears. Priorities are distinct
//!    random keys above every change-point priority, which gives the same distribution as the
//!    paper's random permutation of `{d, …, d+n−1}` without having to know `n` in advance.
//! 2. `d − 1` change points `k₁ … k_{d−1}` are drawn uniformly from `[1, k]`; change point `i`
//!    carries priority `i` (below every initial priority).
//! 3. At each scheduling point the highest-priority enabled thread runs. The thread that performs
//!    step `kᵢ` (steps are 1-based: `view.step + 1`) has its priority set to `i` afterwards.
//!
//! Estimates: `n` is not needed (see 1.). `k` is [`PctConfig::steps`] if given; otherwise it is
//! learned: the largest step count of the earlier executions of this session (100 before the
//! first one ends). Guarantee: a bug of depth `d` is hit with probability ≥ `1/(n·k^(d−1))` per
//! execution when `k` bounds the steps.
//!
//! Two additions the paper does not need but a JVM program does: a thread whose yield count
//! (`Yield` and `Sleep` performed) has grown by 100 since its priority was last lowered gets the
//! lowest priority so far, so spin loops end under strict priority (RankChecker's rule); and a
//! `notify` wakes a uniformly random waiter.

use super::api::{ExecutionSummary, Pick, Strategy, View};
use crate::ids::{ObjId, ThreadId};
use crate::rng::{RandomSource, SeededRandom};

/// Yields after which a spinning thread's priority is lowered.
pub const YIELDS_BEFORE_LOWERING: u32 = 100;

/// Step estimate used before any execution has ended, when none is configured.
pub const DEFAULT_STEPS: u64 = 100;

/// PCT's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PctConfig {
    /// Session seed: execution `i` draws from `SeededRandom::for_execution(seed, i)`.
    pub seed: u64,
    /// Bug depth `d ≥ 1` (`d − 1` change points).
    pub depth: u32,
    /// `k`, the step estimate; `None` to learn it from earlier executions.
    pub steps: Option<u64>,
}

/// The PCT strategy.
#[derive(Clone, Debug)]
pub struct Pct {
    config: PctConfig,
    learned_steps: Option<u64>,
    rng: SeededRandom,
    /// Priority of each thread seen so far in this execution (higher runs first).
    priority: Vec<i64>,
    /// Yield count at which each thread's priority was last lowered by the yield rule.
    lowered_at: Vec<u32>,
    /// `(step, priority)` of each change point.
    change_points: Vec<(u64, i64)>,
    /// The lowest priority handed out by the yield rule (starts below every change point).
    lowest: i64,
    /// Steps performed so far in this execution, as far as this strategy saw them.
    steps_done: u64,
}

/// The first line of a saved PCT state.
const STATE_HEADER: &str = "rankcheck-pct-state 1";

/// Initial priorities are at least this, far above change-point priorities `1..d`.
const INITIAL_FLOOR: i64 = 1 << 40;

impl Pct {
    /// A PCT session.
    pub fn new(config: PctConfig) -> Pct {
        let rng = SeededRandom::for_execution(config.seed, 0);
        Pct {
            config,
            learned_steps: None,
            rng,
            priority: Vec::new(),
            lowered_at: Vec::new(),
            change_points: Vec::new(),
            lowest: 0,
            steps_done: 0,
        }
    }

    /// The step estimate `k` used for the current execution.
    pub fn steps_estimate(&self) -> u64 {
        self.config
            .steps
            .or(self.learned_steps)
            .unwrap_or(DEFAULT_STEPS)
            .max(1)
    }

    /// The state a session split over JVMs carries on (`state=`): the learned step estimate,
    /// so that PCT run one execution per JVM (a plain `main` under the agent) does not draw
    /// its change points from the first 100 steps for ever.
    pub fn to_text(&self) -> String {
        format!(
            "{STATE_HEADER}\nsteps {}\n",
            self.learned_steps.unwrap_or(0)
        )
    }

    /// A PCT session going on from [`to_text`](Pct::to_text)'s state.
    pub fn from_text(config: PctConfig, text: &str) -> Result<Pct, String> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        if lines.next() != Some(STATE_HEADER) {
            return Err(format!("a PCT state starts with `{STATE_HEADER}`"));
        }
        let mut pct = Pct::new(config);
        for line in lines {
            match line.split_once(' ') {
                Some(("steps", n)) => {
                    let n: u64 = n
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad step count `{n}`"))?;
                    pct.learned_steps = (n > 0).then_some(n);
                }
                _ => return Err(format!("unknown PCT state line `{line}`")),
            }
        }
        Ok(pct)
    }

    /// The change points of the current execution, as `(step, priority)`.
    pub fn change_points(&self) -> &[(u64, i64)] {
        &self.change_points
    }

    fn highest(&self, view: &View<'_>) -> ThreadId {
        let mut best = view.enabled[0].thread;
        for c in &view.enabled[1..] {
            if self.priority[c.thread.index()] > self.priority[best.index()] {
                best = c.thread;
            }
        }
        best
    }
}

impl Strategy for Pct {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.config.seed, index);
        self.priority.clear();
        self.lowered_at.clear();
        self.change_points.clear();
        self.lowest = 0;
        self.steps_done = 0;
        let k = self.steps_estimate();
        for i in 1..self.config.depth.max(1) {
            let step = 1 + self.rng.below(k);
            self.change_points.push((step, i64::from(i)));
        }
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        while self.priority.len() < view.threads as usize {
            // 40 random bits: ties have negligible probability and break towards lower ids.
            let key = INITIAL_FLOOR + (self.rng.next_u64() >> 24) as i64;
            self.priority.push(key);
            self.lowered_at.push(0);
        }
        for c in view.enabled {
            let t = c.thread.index();
            if c.yields >= self.lowered_at[t].saturating_add(YIELDS_BEFORE_LOWERING) {
                self.lowered_at[t] = c.yields;
                self.lowest -= 1;
                self.priority[t] = self.lowest;
            }
        }
        let t = self.highest(view);
        let step = view.step + 1;
        self.steps_done = step;
        if let Some(&(_, p)) = self.change_points.iter().find(|&&(s, _)| s == step) {
            // `t` performs step kᵢ, then runs at priority i.
            self.priority[t.index()] = p;
        }
        Ok(t)
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        Ok(waiters[self.rng.index(waiters.len())])
    }

    fn offers_quiet_steps(&self) -> bool {
        true
    }

    /// Steps performed without a pick (a static initializer's accesses, say) may hold a change
    /// point: the thread that performed it takes its priority, as in [`pick`](Strategy::pick).
    /// (A quiet stretch this strategy granted never does.)
    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), super::api::Stop> {
        let (first, last) = (self.steps_done + 1, self.steps_done + steps);
        let mut hit: Vec<(u64, i64)> = self
            .change_points
            .iter()
            .copied()
            .filter(|&(s, _)| (first..=last).contains(&s))
            .collect();
        hit.sort_unstable();
        if let (Some(&(_, p)), Some(slot)) = (hit.last(), self.priority.get_mut(thread.index())) {
            *slot = p;
        }
        self.steps_done = last;
        Ok(())
    }

    /// The running thread keeps the turn at its accesses until the next change point as long
    /// as it has the highest priority among the enabled threads and nobody's yield rule fires:
    /// exactly what [`pick`](Strategy::pick) would answer, without the calls.
    fn quiet_steps(&mut self, view: &View<'_>) -> u64 {
        let Some(running) = view.running else {
            return 0;
        };
        // A thread without a priority yet gets a random one at the next pick.
        if self.priority.len() < view.threads as usize {
            return 0;
        }
        let lowering = view.enabled.iter().any(|c| {
            c.yields >= self.lowered_at[c.thread.index()].saturating_add(YIELDS_BEFORE_LOWERING)
        });
        if lowering || self.highest(view) != running {
            return 0;
        }
        let next = view.step + 1;
        // Steps up to (not including) the next change point, which `pick` must see.
        self.change_points
            .iter()
            .filter(|&&(s, _)| s >= next)
            .map(|&(s, _)| s - next)
            .min()
            .unwrap_or(u64::MAX)
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.learned_steps = Some(self.learned_steps.unwrap_or(0).max(summary.steps));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{self, Cmp, Ins, Outcome, Program, Val};
    use crate::Config;

    #[test]
    fn change_points_are_d_minus_1_steps_within_k() {
        let mut pct = Pct::new(PctConfig {
            seed: 1,
            depth: 4,
            steps: Some(10),
        });
        for i in 0..50 {
            pct.begin_execution(i);
            let cps = pct.change_points();
            assert_eq!(cps.iter().map(|c| c.1).collect::<Vec<_>>(), vec![1, 2, 3]);
            assert!(cps.iter().all(|&(s, _)| (1..=10).contains(&s)));
        }
    }

    #[test]
    fn a_change_point_inside_skipped_steps_still_lowers_the_thread() {
        let mut pct = Pct::new(PctConfig {
            seed: 4,
            depth: 2,
            steps: Some(50),
        });
        pct.begin_execution(0);
        let (k, p) = pct.change_points()[0];
        let mut exec = crate::Execution::new(Config::default(), &mut pct);
        // main begins (step 1) and skips past the change point without a pick.
        exec.announce(ThreadId::MAIN, crate::Op::Begin).unwrap();
        exec.quiet_performed(ThreadId::MAIN, k + 3).unwrap();
        drop(exec);
        assert_eq!(pct.priority[0], p, "change point at step {k}");
    }

    #[test]
    fn the_learned_k_survives_a_save_and_resume() {
        let config = PctConfig {
            seed: 1,
            depth: 2,
            steps: None,
        };
        let mut pct = Pct::new(config.clone());
        sim::search(
            &sim::programs::lost_update(false),
            Config::default(),
            &mut pct,
            2,
            false,
        )
        .unwrap();
        let resumed = Pct::from_text(config.clone(), &pct.to_text()).unwrap();
        assert_eq!(resumed.steps_estimate(), 15);
        assert!(Pct::from_text(config.clone(), "nonsense").is_err());
        assert!(Pct::from_text(config, "rankcheck-pct-state 1\nsteps x").is_err());
    }

    #[test]
    fn k_is_learned_from_earlier_executions() {
        let p = sim::programs::lost_update(false);
        let mut pct = Pct::new(PctConfig {
            seed: 1,
            depth: 2,
            steps: None,
        });
        assert_eq!(pct.steps_estimate(), DEFAULT_STEPS);
        sim::search(&p, Config::default(), &mut pct, 3, false).unwrap();
        // main: Begin Start Start Join Join Read End; workers: Begin Read Write End.
        assert_eq!(pct.steps_estimate(), 15);
    }

    #[test]
    fn a_yielding_spin_loop_ends_under_strict_priority() {
        use Ins::*;
        let spinner = vec![
            Read { var: 0, reg: 0 },
            JumpIf {
                reg: 0,
                cmp: Cmp::Ne,
                val: Val::Const(0),
                to: 4,
            },
            Yield,
            Goto(0),
        ];
        let p = Program {
            name: "spin",
            vars: vec![0],
            bodies: vec![
                vec![Start(1), Start(2), Join(1), Join(2)],
                spinner,
                vec![Write {
                    var: 0,
                    val: Val::Const(1),
                }],
            ],
        };
        let config = Config {
            max_steps: 5_000,
            ..Config::default()
        };
        for seed in 0..20 {
            let pct = Pct::new(PctConfig {
                seed,
                depth: 1,
                steps: None,
            });
            let mut exec = crate::Execution::new(config.clone(), pct);
            assert_eq!(
                sim::run_execution(&mut exec, &p),
                Ok(Outcome::Pass),
                "seed {seed}"
            );
        }
    }
}
