//! POS and POS\* — partial order sampling (Yuan, Yang, Gu, *Partial Order Aware Concurrency
//! Sampling*, CAV 2018: §5 "Implementation", Algorithm 4, "Relaxation for Read-Only Events" and
//! "Fairness Workaround"; restated in `ALGORITHMS.md`, "POS").
//!
//! 1. Every pending event (the next operation of each thread) gets a random priority in `[0, 1)`
//!    when it first appears.
//! 2. The enabled pending event with the highest priority runs.
//! 3. After event `e` runs, the executing thread's next event gets a fresh priority, and every
//!    pending event of another thread that *races* with `e` loses its priority and gets a fresh
//!    one.
//!
//! Two events race when they touch the same object (memory location, monitor, thread, permit —
//! the keys of [`crate::hb::event_touches`]). POS\* relaxes read–read pairs: two reads of the
//! same location do not race. (The paper's base POS lets every same-object pair race; the
//! relaxation is what distinguishes POS\*.)
//!
//! Fairness: all priorities are reset after every 1,000 yields (`Thread.yield`/`sleep`).

use crate::hb::{self, Mode};
use crate::ids::{ObjId, ThreadId};
use crate::op::Op;
use crate::rng::{RandomSource, SeededRandom};
use crate::strategy::{ExecutionSummary, Pick, Strategy, View};

/// Yields after which every priority is reset (the paper's fairness workaround).
pub const FAIRNESS_YIELDS: u64 = 1_000;

/// Partial order sampling; `relax_reads` makes it POS\*.
#[derive(Clone, Debug)]
pub struct Pos {
    seed: u64,
    relax_reads: bool,
    rng: SeededRandom,
    /// Priority of each thread's pending event (`None`: draw a fresh one when it is enabled).
    priority: Vec<Option<f64>>,
    /// Each thread's pending operation as last seen (disabled threads keep theirs).
    pending: Vec<Option<Op>>,
    consumed: usize,
    yields: u64,
}

impl Pos {
    /// POS (`relax_reads == false`) or POS\* (`true`), seeded.
    pub fn new(seed: u64, relax_reads: bool) -> Pos {
        Pos {
            seed,
            relax_reads,
            rng: SeededRandom::for_execution(seed, 0),
            priority: Vec::new(),
            pending: Vec::new(),
            consumed: 0,
            yields: 0,
        }
    }

    fn races(&self, a: &[(u64, Mode)], b: &[(u64, Mode)]) -> bool {
        a.iter().any(|&(ka, ma)| {
            b.iter().any(|&(kb, mb)| {
                ka == kb && !(self.relax_reads && ma == Mode::Read && mb == Mode::Read)
            })
        })
    }

    fn slot<T: Clone>(v: &mut Vec<Option<T>>, t: ThreadId) -> &mut Option<T> {
        if v.len() <= t.index() {
            v.resize(t.index() + 1, None);
        }
        &mut v[t.index()]
    }
}

impl Strategy for Pos {
    fn begin_execution(&mut self, index: u64) {
        self.rng = SeededRandom::for_execution(self.seed, index);
        self.priority.clear();
        self.pending.clear();
        self.consumed = 0;
        self.yields = 0;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        // Priority reassignment for the events performed since the last pick (one, normally).
        while self.consumed < view.events.len() {
            let e = view.events[self.consumed];
            self.consumed += 1;
            *Self::slot(&mut self.priority, e.thread) = None;
            let (_, touched) = hb::event_touches(&e);
            for u in 0..self.pending.len() {
                let u = ThreadId(u as u32);
                if u == e.thread {
                    continue;
                }
                if let Some(op) = self.pending[u.index()] {
                    let p = hb::pending_event(u, &op, 0, view.threads);
                    if self.races(touched.as_slice(), hb::event_touches(&p).1.as_slice()) {
                        *Self::slot(&mut self.priority, u) = None;
                    }
                }
            }
            if matches!(e.kind, crate::OpKind::Yield | crate::OpKind::Sleep) {
                self.yields += 1;
                if self.yields % FAIRNESS_YIELDS == 0 {
                    self.priority.clear();
                }
            }
        }
        let mut best = view.enabled[0].thread;
        let mut best_value = f64::NEG_INFINITY;
        for c in view.enabled {
            *Self::slot(&mut self.pending, c.thread) = Some(c.op);
            let slot = Self::slot(&mut self.priority, c.thread);
            let value = match *slot {
                Some(v) => v,
                None => {
                    let v = self.rng.unit();
                    *Self::slot(&mut self.priority, c.thread) = Some(v);
                    v
                }
            };
            if value > best_value {
                best = c.thread;
                best_value = value;
            }
        }
        Ok(best)
    }

    fn pick_waiter(&mut self, _obj: ObjId, waiters: &[ThreadId]) -> Pick {
        Ok(waiters[self.rng.index(waiters.len())])
    }

    fn end_execution(&mut self, _summary: &ExecutionSummary<'_>) -> bool {
        true
    }
}
