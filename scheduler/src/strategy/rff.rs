//! Reads-from feedback (`rff`): a coverage-guided search across executions, after the idea of
//! greybox fuzzing over reads-from relations (ASPLOS 2024), written here from that idea.
//!
//! - **Feedback.** Each execution's reads-from pairs: for every read of a shared location, the
//!   site of the write it saw (0: the value the location had before the execution wrote it) and
//!   the read's own site. Sites, not events, so pairs compare across executions.
//! - **Corpus.** An execution that produced a pair never seen before in this strategy value
//!   joins the corpus with the constraints it ran under and the mutations its pairs suggest.
//!   Nothing else grows it.
//! - **Mutations.** A constraint `Delay { hold, until }` keeps a thread whose pending operation
//!   is at site `hold` from running while another thread can, until some thread has performed an
//!   operation at site `until` in this execution. Each pair suggests its reversal: a read that saw
//!   write `w` suggests holding `w` until the read ran (the read then sees an older value); a
//!   read followed by another thread's write `w'` to the same location suggests holding the read
//!   until `w'` ran (the read then sees `w'`).
//! - **Power schedule.** An entry is drawn with weight Σ 1/hits over the pairs it found (rare
//!   pairs are favoured), divided by how often it was drawn; its mutation is drawn with weight
//!   1/hits of the pair that suggested it. A new execution adds that mutation to the entry's
//!   constraints (at most [`MAX_DELAYS`], oldest dropped); one execution in four runs with no
//!   constraint at all, so the search never narrows to the corpus alone.
//! - **Under the constraints** the threads are ordered by POS (partial order sampling), seeded
//!   per execution.
//!
//! Every choice comes from `SeededRandom::for_execution(seed, index)` and what earlier executions
//! of the same strategy value saw, so a chunk of executions is reproducible from the seed, and
//! its schedules are recorded and replay like any other.

use super::api::{Candidate, ExecutionSummary, Pick, Strategy, View};
use super::pos::Pos;
use crate::events::EventLog;
use crate::ids::{ObjId, SiteId, ThreadId};
use crate::op::OpKind;
use crate::rng::{RandomSource, SeededRandom};
use std::collections::HashMap;

/// Constraints one execution runs under, at most.
pub const MAX_DELAYS: usize = 4;

/// Hold a thread at site `hold` until an operation at site `until` ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Delay {
    pub hold: SiteId,
    pub until: SiteId,
}

/// A reads-from pair: (write site, 0 for the initial value; read site).
pub type RfPair = (SiteId, SiteId);

#[derive(Clone, Debug)]
struct Entry {
    delays: Vec<Delay>,
    /// The pairs this entry's execution saw first.
    found: Vec<RfPair>,
    /// Mutations its pairs suggest, with the pair that suggested each.
    mutations: Vec<(Delay, RfPair)>,
    drawn: u64,
}

/// The reads-from feedback search.
#[derive(Clone, Debug)]
pub struct Rff {
    seed: u64,
    pos: Pos,
    rng: SeededRandom,
    /// How many executions saw each pair.
    hits: HashMap<RfPair, u64>,
    corpus: Vec<Entry>,
    /// This execution's constraints, and which are still holding.
    delays: Vec<Delay>,
    released: Vec<bool>,
    consumed: usize,
    offered: Vec<Candidate>,
}

impl Rff {
    /// The search seeded with `seed`.
    pub fn new(seed: u64) -> Rff {
        Rff {
            seed,
            pos: Pos::new(seed, false),
            rng: SeededRandom::for_execution(seed ^ 0x5246_4600, 0),
            hits: HashMap::new(),
            corpus: Vec::new(),
            delays: Vec::new(),
            released: Vec::new(),
            consumed: 0,
            offered: Vec::new(),
        }
    }

    /// Executions kept in the corpus.
    pub fn corpus_len(&self) -> usize {
        self.corpus.len()
    }

    /// Distinct reads-from pairs seen so far.
    pub fn pairs_seen(&self) -> usize {
        self.hits.len()
    }

    /// The constraints of the current execution.
    pub fn delays(&self) -> &[Delay] {
        &self.delays
    }

    fn rarity(&self, pair: &RfPair) -> f64 {
        1.0 / self.hits.get(pair).copied().unwrap_or(1).max(1) as f64
    }

    /// Draws an index with probability proportional to `weights` (all zero: uniform).
    fn draw(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return self.rng.index(weights.len());
        }
        let mut x = self.rng.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    /// The constraints for the next execution, from the corpus.
    fn choose_delays(&mut self) -> Vec<Delay> {
        if self.corpus.is_empty() || self.rng.below(4) == 0 {
            return Vec::new();
        }
        let weights: Vec<f64> = self
            .corpus
            .iter()
            .map(|e| e.found.iter().map(|p| self.rarity(p)).sum::<f64>() / (1 + e.drawn) as f64)
            .collect();
        let i = self.draw(&weights);
        self.corpus[i].drawn += 1;
        let mut delays = self.corpus[i].delays.clone();
        let options: Vec<(Delay, RfPair)> = self.corpus[i]
            .mutations
            .iter()
            .filter(|(d, _)| !delays.contains(d))
            .copied()
            .collect();
        if options.is_empty() {
            return delays;
        }
        let weights: Vec<f64> = options.iter().map(|(_, p)| self.rarity(p)).collect();
        let (delay, _) = options[self.draw(&weights)];
        if delays.len() == MAX_DELAYS {
            delays.remove(0);
        }
        delays.push(delay);
        delays
    }

    /// Releases the constraints whose `until` site ran since the last call.
    fn observe(&mut self, events: &EventLog) {
        while self.consumed < events.len() {
            let site = events[self.consumed].site;
            self.consumed += 1;
            for (d, released) in self.delays.iter().zip(self.released.iter_mut()) {
                if d.until == site {
                    *released = true;
                }
            }
        }
    }

    fn held(&self, c: &Candidate) -> bool {
        let Some(site) = c.op.site() else {
            return false;
        };
        self.delays
            .iter()
            .zip(&self.released)
            .any(|(d, released)| !released && d.hold == site)
    }
}

/// The reads-from pairs of an execution, and the reversals they suggest.
pub fn reads_from(events: &EventLog) -> (Vec<RfPair>, Vec<(Delay, RfPair)>) {
    let mut last_write: HashMap<u64, (SiteId, ThreadId)> = HashMap::new();
    let mut pairs = Vec::new();
    let mut mutations = Vec::new();
    // Reads still waiting for a later write by another thread: location → (read site, thread).
    let mut open_reads: HashMap<u64, Vec<(SiteId, ThreadId, RfPair)>> = HashMap::new();
    for e in events.iter() {
        match e.kind {
            OpKind::Read => {
                let writer = last_write.get(&e.target).copied();
                let pair = (writer.map_or(0, |(s, _)| s), e.site);
                if let Some((w, t)) = writer {
                    if t != e.thread {
                        mutations.push((
                            Delay {
                                hold: w,
                                until: e.site,
                            },
                            pair,
                        ));
                    }
                }
                pairs.push(pair);
                open_reads
                    .entry(e.target)
                    .or_default()
                    .push((e.site, e.thread, pair));
            }
            OpKind::Write => {
                if let Some(reads) = open_reads.remove(&e.target) {
                    for (read_site, reader, pair) in reads {
                        if reader != e.thread {
                            mutations.push((
                                Delay {
                                    hold: read_site,
                                    until: e.site,
                                },
                                pair,
                            ));
                        }
                    }
                }
                last_write.insert(e.target, (e.site, e.thread));
            }
            _ => {}
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    mutations.sort_unstable_by_key(|(d, p)| (d.hold, d.until, p.0, p.1));
    mutations.dedup();
    (pairs, mutations)
}

impl Strategy for Rff {
    fn begin_execution(&mut self, index: u64) {
        self.pos.begin_execution(index);
        self.rng = SeededRandom::for_execution(self.seed ^ 0x5246_4600, index);
        self.delays = self.choose_delays();
        self.released = vec![false; self.delays.len()];
        self.consumed = 0;
    }

    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.observe(view.events);
        let mut offered = std::mem::take(&mut self.offered);
        offered.clear();
        offered.extend(view.enabled.iter().filter(|c| !self.held(c)).copied());
        let pick = if offered.is_empty() || offered.len() == view.enabled.len() {
            self.pos.pick(view)
        } else {
            let running_enabled = view
                .running
                .is_some_and(|r| offered.iter().any(|c| c.thread == r));
            self.pos.pick(&View {
                enabled: &offered,
                running_enabled,
                ..*view
            })
        };
        self.offered = offered;
        pick
    }

    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.pos.pick_waiter(obj, waiters)
    }

    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.pos.end_execution(summary);
        let (pairs, mutations) = reads_from(summary.events);
        let mut found = Vec::new();
        for p in pairs {
            let hits = self.hits.entry(p).or_insert(0);
            if *hits == 0 {
                found.push(p);
            }
            *hits += 1;
        }
        if !found.is_empty() {
            self.corpus.push(Entry {
                delays: self.delays.clone(),
                found,
                mutations,
                drawn: 0,
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{programs, run_execution, search};
    use crate::{Config, Execution};

    #[test]
    fn the_corpus_grows_only_on_new_reads_from_pairs() {
        let program = programs::atomicity_violation(true);
        let mut exec = Execution::new(Config::default(), Rff::new(5));
        let mut grew = 0;
        for _ in 0..300 {
            run_execution(&mut exec, &program).unwrap();
            let (pairs, corpus) = (exec.strategy().pairs_seen(), exec.strategy().corpus_len());
            exec.finish(false).unwrap();
            let (pairs_after, corpus_after) =
                (exec.strategy().pairs_seen(), exec.strategy().corpus_len());
            assert_eq!(
                corpus_after > corpus,
                pairs_after > pairs,
                "the corpus grows exactly when a pair is new"
            );
            grew += usize::from(corpus_after > corpus);
            exec.restart().unwrap();
        }
        assert!(grew >= 2, "several executions found new pairs ({grew})");
    }

    #[test]
    fn a_read_suggests_both_reversals() {
        use crate::sim::{Ins, Program, Val};
        // t1 writes x at its first instruction; t2 reads x twice.
        let program = Program {
            name: "rf",
            vars: vec![0],
            bodies: vec![
                vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
                vec![Ins::Write {
                    var: 0,
                    val: Val::Const(1),
                }],
                vec![Ins::Read { var: 0, reg: 0 }, Ins::Read { var: 0, reg: 0 }],
            ],
        };
        let mut exec = Execution::new(Config::default(), crate::strategy::NonPreemptive::new());
        run_execution(&mut exec, &program).unwrap();
        let (pairs, mutations) = reads_from(exec.events());
        // Non-preemptive: t1 writes before t2 reads, both reads see the write.
        let write_site = exec
            .events()
            .iter()
            .find(|e| e.kind == OpKind::Write)
            .unwrap()
            .site;
        assert!(pairs.iter().all(|p| p.0 == write_site), "{pairs:?}");
        assert!(mutations.iter().all(|(d, _)| d.hold == write_site));
        assert_eq!(mutations.len(), 2);
    }

    #[test]
    fn finds_the_simulated_bugs_and_repeats_from_its_seed() {
        for case in programs::all().into_iter().filter(|c| !c.needs_spurious) {
            let found = search(&case.buggy, Config::default(), Rff::new(1), 2_000, true).unwrap();
            assert!(found.first_bug.is_some(), "{}: not found", case.name);
            let again = search(&case.buggy, Config::default(), Rff::new(1), 2_000, true).unwrap();
            assert_eq!(found, again, "{}: the same seed ran differently", case.name);
        }
    }
}
