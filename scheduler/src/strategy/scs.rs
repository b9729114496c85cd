//! SCS — speed-controlled scheduling (Chen, Jiang, Xu, Ma, Lu, *Testing Multithreaded Programs
//! via Thread Speed Control*, FSE 2018: §3 speed space, Algorithm 1 "systematic speed control" and
//! Algorithm 2 "speed controlled scheduler"; restated in `ALGORITHMS.md`, "SCS").
//!
//! A speed vector `σ ∈ (0, 1]ⁿ` gives each thread a relative speed. Execution proceeds in
//! intervals of `L` scheduling points; within an interval thread `i` may perform at most
//! `⌈σᵢ · L⌉` steps and then waits for the next interval. A new interval starts when no enabled
//! thread has quota left (a blocked thread's turn passes as a no-op). Among the threads with
//! quota left, one is picked uniformly at random (the threads "run in parallel").
//!
//! Systematic sampling *(reconstruction)*: a basis set `Ts` of the main thread and the first two
//! workers (ids 0, 1, 2); for every ordered pair `(i, j)` of distinct basis threads and every
//! back-off level `b ∈ 1 … k`: `σᵢ = 1`, `σⱼ = 2^−b`, every other thread uniform in `(0, 1]`.
//! With `|Ts| = 3` and `k = 7` that is 42 vectors; execution `e` uses vector `e mod 42` (with
//! fresh random speeds for the other threads on every round).

use crate::ids::{ObjId, ThreadId};
use crate::rng::{RandomSource, SeededRandom};
use crate::strategy::{ExecutionSummary, Pick, Strategy, View};

/// One basis setting: thread `fast` at speed 1, thread `slow` at `2^−backoff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Basis {
    pub fast: u32,
    pub slow: u32,
    pub backoff: u32,
}

impl Basis {
    /// The slow thread's speed, `2^−backoff`.
    pub fn slow_speed(&self) -> f64 {
        0.5f64.powi(self.backoff as i32)
    }
}

/// Every basis setting for basis threads `basis` and back-off levels `1 ..= levels`, in order:
/// `|basis| · (|basis| − 1) · levels` of them.
pub fn basis_settings(basis: &[u32], levels: u32) -> Vec<Basis> {
    let mut out = Vec::new();
    for &fast in basis {
        for &slow in basis {
            if fast == slow {
                continue;
            }
            for backoff in 1..=levels {
                out.push(Basis {
                    fast,
                    slow,
                    backoff,
                });
            }
        }
    }
    out
}

/// Settings of SCS.
#[derive(Clone, Debug)]
pub struct ScsConfig {
    /// Interval length `L` in scheduling points.
    pub interval: u32,
    /// Back-off levels `k`.
    pub levels: u32,
    /// The basis threads `Ts`.
    pub basis: Vec<u32>,
    pub seed: u64,
}

impl Default for ScsConfig {
    fn default() -> Self {
        ScsConfig {
            interval: 64,
            levels: 7,
            basis: vec![0, 1, 2],
            seed: 0,
        }
    }
}

/// The speed-controlled scheduler with systematic sampling of the speed space.
#[derive(Clone, Debug)]
pub struct Scs {
    config: ScsConfig,
    settings: Vec<Basis>,
    rng: SeededRandom,
    current: Basis,
    speeds: Vec<f64>,
    used: Vec<u32>,
    executions: u64,
}

impl Scs {
    /// SCS with `config`.
    pub fn new(config: ScsConfig) -> Scs {
        let mut settings = basis_settings(&config.basis, config.levels.max(1));
        if settings.is_empty() {
            // Fewer than two distinct basis threads: the main thread and the first worker.
            settings = basis_settings(&[0, 1], config.levels.max(1));
        }
        Scs {
            rng: SeededRandom::for_execution(config.seed, 0),
            current: settings[0],
            settings,
            config,
            speeds: Vec::new(),
            used: Vec::new(),
            executions: 0,
        }
    }

    /// Every basis setting, in sampling order.
    pub fn settings(&self) -> &[Basis] {
        &self.settings
    }

    /// The basis setting of the current execution.
    pub fn current(&self) -> Basis {
        self.current
    }

    /// Speed of thread `t` in this execution (drawn when first needed).
    pub fn speed(&mut self, t: ThreadId) -> f64 {
        let i = t.index();
        while self.speeds.len() <= i {
            let id = self.speeds.len() as u32;
            let s = if id == self.current.fast {
                1.0
            } else if id == self.current.slow {
                self.current.slow_speed()
            } else {
                1.0 - self.rng.unit() // uniform in (0, 1]
            };
            self.speeds.push(s);
        }
        self.speeds[i]
    }

    fn quota(&mut self, t: ThreadId) -> u32 {
        (self.speed(t) * f64::from(self.config.interval))
            .ceil()
            .max(1.0) as u32
    }

    /// The coverage statement.
    pub fn coverage(&self) -> String {
        let rounds = self.executions / self.settings.len() as u64;
        format!(
            "{} of {} basis speed settings sampled ({} full rounds; basis threads {:?}, {} back-off levels, interval {})",
            self.executions.min(self.settings.len() as u64),
            self.settings.len(),
            rounds,
            self.config.basis,
            self.config.levels,
            self.config.interval
        )
    }
}

impl Strategy for Scs {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.config.seed, index);
        self.current = self.settings[(index % self.settings.len() as u64) as usize];
        self.speeds.clear();
        self.used.clear();
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        let mut eligible = Vec::with_capacity(view.enabled.len());
        for c in view.enabled {
            let q = self.quota(c.thread);
            let used = self.used.get(c.thread.index()).copied().unwrap_or(0);
            if used < q {
                eligible.push(c.thread);
            }
        }
        if eligible.is_empty() {
            // Every enabled thread drained its quota: the next interval starts.
            self.used.clear();
            eligible.extend(view.enabled.iter().map(|c| c.thread));
        }
        let t = eligible[self.rng.index(eligible.len())];
        if self.used.len() <= t.index() {
            self.used.resize(t.index() + 1, 0);
        }
        self.used[t.index()] += 1;
        Ok(t)
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        Ok(waiters[self.rng.index(waiters.len())])
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        self.executions += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_degenerate_basis_falls_back_to_main_and_first_worker() {
        let scs = Scs::new(ScsConfig {
            basis: vec![3, 3],
            ..ScsConfig::default()
        });
        assert_eq!(scs.settings().len(), 14);
    }

    #[test]
    fn paper_setting_gives_42_vectors_and_never_equal_basis_speeds() {
        let s = basis_settings(&[0, 1, 2], 7);
        assert_eq!(s.len(), 42);
        let distinct: std::collections::HashSet<_> = s.iter().collect();
        assert_eq!(distinct.len(), 42);
        for b in &s {
            assert_ne!(b.fast, b.slow);
            assert!(b.slow_speed() < 1.0 && b.slow_speed() >= 1.0 / 128.0);
        }
    }
}
