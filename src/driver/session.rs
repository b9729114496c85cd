//! A search session: up to `budget` executions of one program under one strategy, spread over
//! `jobs` JVMs running at once, each pinned to its own CPU, stopping at the first bug.
//!
//! Determinism: the executions are cut into chunks of [`CHUNK`] (execution indices
//! `first .. first + count`), a size that never depends on `jobs`; a strategy's schedule for
//! execution `i` depends only on the seed, `i` and what it learned earlier in the same chunk
//! (each chunk starts with a fresh strategy). So the same options give the same schedules
//! whatever `-j` is. The `jobs` JVMs take the chunks in turn, each running all of its own
//! (`scheduler::chunk_plan`): a JVM start and the JIT's warm-up cost more than a hundred
//! executions of a small program. Several JVMs may find bugs; the session reports the one with
//! the lowest execution index, and lets every JVM run its executions before it (stopping a JVM
//! once all it has left comes after it), so the reported bug and "executions to the first bug"
//! do not depend on timing either. Strategies whose search state spans the session (ICB, SCS)
//! run in one JVM; fork mode runs a JVM per execution. A shard (`driver::shard`) runs every
//! N-th of the same chunks, so N shards run the unsharded session's schedules.

use super::jvm::{on_off, Launch};
use super::progress::{LiveCount, Progress};
use super::shard::Shard;
use super::strategy::{Spread, CHUNK};
use scheduler::chunk_plan::ChunkPlan;
use scheduler::session_coverage::Facts;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Inconclusive executions after which a forked session starts no more JVMs (the agent's
/// `max-inconclusive` default), and after which any session does when no execution has given
/// a verdict yet: a program rankcheck cannot control at all (a loop without scheduling points
/// times out in every execution) would otherwise cost that many executions per JVM, over a
/// whole budget, to end with the same exit 3.
const MAX_INCONCLUSIVE: u64 = 3;

/// How to run one session.
#[derive(Clone, Debug)]
pub struct Session {
    /// The JVM to start, with strategy, seed, bounds and oracles set; `executions`,
    /// `first-execution`, `pin`, `keep-going` and `time-limit-ms` are set per JVM.
    pub launch: Launch,
    pub spread: Spread,
    pub budget: u64,
    pub jobs: usize,
    /// One JVM per execution.
    pub fork: bool,
    pub keep_going: bool,
    pub time_limit: Option<Duration>,
    /// Scratch folder for options and result files (and private working directories).
    pub work: PathBuf,
    /// Folder for the JVMs' logs (their own stdout and stderr: agent warnings, crashes), one
    /// file per JVM; it outlives the session (the caller removes the empty ones).
    pub logs: PathBuf,
    /// Give every JVM its own working directory below `work` (files the program writes, and
    /// `--fail-on-file` paths, cannot collide between parallel JVMs).
    pub private_cwd: bool,
    /// Counts executions and failing executions as they come (`driver::progress`).
    pub progress: Option<Progress>,
    /// The last execution of each of the first this-many JVMs records its schedule, to be
    /// replayed in a fresh JVM (the determinism check).
    pub samples: usize,
    /// Run only this shard's chunks (`None`: every chunk).
    pub shard: Option<Shard>,
}

/// What one counted execution tells the coverage statement (`Facts::add`), kept per execution
/// so that a merge of shards can count exactly the executions the unsharded run would.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counted {
    pub index: u64,
    pub threads: u32,
    pub steps: u64,
    pub hb: Option<u64>,
    pub exhausted: bool,
    /// Collections used alone while a later user ran (the agent's `alone_then_shared`).
    #[serde(default)]
    pub alone_then_shared: u32,
    /// Steps at which a timed wait could have timed out while other threads went on (the
    /// agent's `timeouts_withheld`).
    #[serde(default)]
    pub timeouts_withheld: u64,
    /// A shard of a partitioned enumeration (icb, mcr, rankchecker-exhaustive): the
    /// execution's place in the unsharded search's order, by which the merge numbers
    /// executions (`index` is the shard's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<u64>>,
    /// It left the prefix its enumeration gave it (the agent's kind `diverged`, or
    /// `left_prefix` for a strategy that goes on freely after leaving it).
    #[serde(default)]
    pub diverged: bool,
    /// The strategy ended it early, its rest explored from the same state (kind `pruned`).
    #[serde(default)]
    pub pruned: bool,
    /// Alternatives its expansion found that the solver's bound left undecided (MCR).
    #[serde(default)]
    pub undecided: u64,
    /// It had events whose order the enumeration keeps as recorded (MCR).
    #[serde(default)]
    pub order_kept: bool,
}

impl Counted {
    fn of(result: &Value) -> Counted {
        Counted {
            index: result["index"].as_u64().unwrap_or(0),
            threads: result["threads"].as_u64().unwrap_or(0) as u32,
            steps: result["steps"].as_u64().unwrap_or(0),
            hb: result["hb"].as_u64(),
            exhausted: result["exhausted"] == true,
            alone_then_shared: result["alone_then_shared"].as_u64().unwrap_or(0) as u32,
            timeouts_withheld: result["timeouts_withheld"].as_u64().unwrap_or(0),
            order: serde_json::from_value(result["order"].clone()).unwrap_or(None),
            diverged: result["kind"] == "diverged" || result["left_prefix"] == true,
            pruned: result["kind"] == "pruned",
            undecided: result["undecided"].as_u64().unwrap_or(0),
            order_kept: result["order_kept"] == true,
        }
    }

    /// Adds this execution to `facts`.
    pub fn add_to(&self, facts: &mut Facts) {
        if self.pruned {
            facts.add_pruned(self.threads, self.steps, self.exhausted);
        } else {
            facts.add(self.threads, self.steps, self.hb, self.exhausted);
        }
        facts.add_shortfall(&scheduler::coverage::Shortfall {
            left_prefix: self.diverged,
            undecided: self.undecided,
            order_kept: self.order_kept,
        });
    }
}

/// How many of `counted` had a JDK collection a thread used alone while a thread that touched
/// it later was running.
pub fn alone_then_shared(counted: &[Counted]) -> usize {
    counted.iter().filter(|c| c.alone_then_shared > 0).count()
}

/// How many of `counted` had a JDK collection a thread used alone, its accesses no scheduling
/// points, while a thread that touched it later was running (`collections=on`'s shortcut, see
/// the agent's confinement.rs): interleavings inside those uses went unexplored. The warning
/// for people, when there were any.
pub fn alone_then_shared_warning(counted: &[Counted]) -> Option<String> {
    let hit = alone_then_shared(counted);
    (hit > 0).then(|| {
        format!(
            "in {hit} of {} execution(s) a thread used a JDK collection alone while a thread \
             that touched it later was running: those uses had no scheduling point inside \
             (collection accesses become points once a second thread touches the object), so \
             no switch inside them was explored; --jdk-collections all explores them (slower)",
            counted.len()
        )
    })
}

/// How many of `counted` had a timed wait that could have timed out while other threads went
/// on (`--timeouts idle` fires a timeout only when nothing else can run): schedules where a
/// delay or a timed wait ran out early went unexplored. The note for people, when there were
/// any.
pub fn timeouts_withheld_note(counted: &[Counted]) -> Option<String> {
    let hit = counted.iter().filter(|c| c.timeouts_withheld > 0).count();
    (hit > 0).then(|| {
        format!(
            "in {hit} of {} execution(s) a timed wait (a delayed task, a timed get, join, await, \
             wait or park) could have timed out while other threads went on; with --timeouts \
             idle (the default) a timeout fires only when nothing else can run, as on a machine \
             where running takes no time, so schedules where it ran out early were not \
             explored; --timeouts any explores them",
            counted.len()
        )
    })
}

/// One failing execution and the JVM launch that ran it.
#[derive(Clone, Debug)]
pub struct Found {
    pub result: Value,
    pub launch: Launch,
}

impl Found {
    pub fn index(&self) -> u64 {
        self.result["index"].as_u64().unwrap_or(u64::MAX)
    }
}

/// What a session did.
#[derive(Debug)]
pub struct Finished {
    /// Executions counted: up to and including the first bug (by index) unless keep-going,
    /// else every execution run.
    pub executions: u64,
    /// Bugs by execution index (only the first unless keep-going).
    pub bugs: Vec<Found>,
    /// Counted executions rankcheck could not control (agent outcome `inconclusive`).
    pub inconclusive: Vec<Found>,
    pub seconds: f64,
    /// What the counted executions covered, merged over every JVM (the scheduler states it).
    pub facts: Facts,
    /// The time limit ended the session.
    pub time_limited: bool,
    /// Passing executions that recorded their schedule for the determinism check.
    pub samples: Vec<Found>,
    /// The strategy's own coverage statement from the last execution counted (agent result
    /// field `coverage`), and whether one JVM ran every counted execution (then it speaks for
    /// the whole session).
    pub agent_coverage: Option<(String, bool)>,
    /// Every counted execution, in index order.
    pub counted: Vec<Counted>,
}

/// One JVM's share of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct JvmJob {
    plan: ChunkPlan,
    /// The agent gets the plan (several chunks, each with a fresh strategy); otherwise the
    /// JVM runs the plan's one chunk as `executions` from `first-execution`.
    several: bool,
}

struct ChunkRun {
    first: u64,
    results: Vec<Value>,
    launch: Launch,
}

impl Session {
    /// Runs the session.
    pub fn run(&self) -> anyhow::Result<Finished> {
        for dir in [&self.work, &self.logs] {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        }
        let chunks = self.own_chunks();
        // A search state carried from JVM to JVM (`state=`) runs them one after the other.
        let jobs = if self.carries_state() {
            1
        } else {
            self.jobs.max(1).min(chunks.len().max(1))
        };
        let jvm_jobs = self.jvm_jobs(&chunks, jobs);
        let exhausted = AtomicBool::new(false);
        // Fork mode: the agent's cap on inconclusive executions counts one JVM only.
        let inconclusive = AtomicU64::new(0);
        let verdicts = AtomicU64::new(0);
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let started = Instant::now();
        let deadline = self.time_limit.map(|t| started + t);
        let next = AtomicU64::new(0);
        let lowest_bug = AtomicU64::new(u64::MAX);
        let failed = AtomicBool::new(false);
        let runs: Mutex<Vec<ChunkRun>> = Mutex::new(Vec::new());
        let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);

        std::thread::scope(|scope| {
            for worker in 0..jobs {
                let (jvm_jobs, next, lowest_bug, failed, runs, error) =
                    (&jvm_jobs, &next, &lowest_bug, &failed, &runs, &error);
                let progress = &self.progress;
                let (exhausted, inconclusive, verdicts) = (&exhausted, &inconclusive, &verdicts);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst) as usize;
                    let Some(job) = jvm_jobs.get(i) else {
                        break;
                    };
                    let first = job.plan.first;
                    if failed.load(Ordering::SeqCst)
                        || exhausted.load(Ordering::SeqCst)
                        || (inconclusive.load(Ordering::SeqCst) >= MAX_INCONCLUSIVE
                            && (self.fork || verdicts.load(Ordering::SeqCst) == 0))
                        || (!self.keep_going && first > lowest_bug.load(Ordering::SeqCst))
                        || deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        break;
                    }
                    let launch = self.jvm_launch(worker, jobs, cpus, i, job, deadline);
                    let results = self.work.join(format!("results-{first}.jsonl"));
                    let live = LiveCount::new(progress.as_ref(), &results);
                    // Stopped once every execution it has left comes after the lowest bug
                    // (it runs its executions in index order; one its strategy skipped
                    // only makes the next one later).
                    let cancel = || {
                        live.poll();
                        failed.load(Ordering::SeqCst)
                            || (!self.keep_going
                                && job
                                    .plan
                                    .nth(live.lines())
                                    .is_some_and(|next| lowest_bug.load(Ordering::SeqCst) < next))
                    };
                    match launch.run_cancellable(&results, &cancel) {
                        Ok(run) => {
                            live.finish(run.results.len() as u64);
                            if let Some(progress) = progress {
                                let bugs = run.results.iter().filter(|r| r["outcome"] == "bug");
                                progress.bugs(bugs.count() as u64);
                            }
                            for r in &run.results {
                                if r["outcome"] == "inconclusive" {
                                    inconclusive.fetch_add(1, Ordering::SeqCst);
                                } else {
                                    verdicts.fetch_add(1, Ordering::SeqCst);
                                }
                                if r["exhausted"] == true && self.carries_state() {
                                    exhausted.store(true, Ordering::SeqCst);
                                }
                                if r["outcome"] == "bug" {
                                    let index = r["index"].as_u64().unwrap_or(first);
                                    lowest_bug.fetch_min(index, Ordering::SeqCst);
                                }
                            }
                            runs.lock().unwrap().push(ChunkRun {
                                first,
                                results: run.results,
                                launch,
                            });
                        }
                        Err(e) => {
                            failed.store(true, Ordering::SeqCst);
                            error.lock().unwrap().get_or_insert(e);
                            break;
                        }
                    }
                });
            }
        });
        if let Some(e) = error.into_inner().unwrap() {
            return Err(e);
        }
        let mut runs = runs.into_inner().unwrap();
        runs.sort_by_key(|r| r.first);
        Ok(self.summarize(runs, started.elapsed(), deadline))
    }

    /// Fork mode for a strategy whose search state spans the session (ICB): each JVM loads
    /// the state the previous one saved, so the JVMs explore what one JVM would.
    fn carries_state(&self) -> bool {
        self.fork && self.spread == Spread::OneJvm
    }

    /// The execution the `position`-th JVM records as a sample: the last of its first chunk, for
    /// one of the first [`Session::samples`] JVMs, when its executions follow others in the
    /// same JVM (a single execution per JVM has nothing before it to depend on).
    fn sample_of(&self, position: usize, job: &JvmJob) -> Option<u64> {
        let plan = &job.plan;
        let last = plan.first + plan.chunk.min(plan.end - plan.first) - 1;
        (!self.fork && last > plan.first && position < self.samples).then_some(last)
    }

    /// `(first, count)` of every JVM, in execution order.
    fn chunks(&self) -> Vec<(u64, u64)> {
        let size = match (self.spread, self.fork) {
            (Spread::OneJvm, true) => 1,
            (Spread::OneJvm, false) => self.budget.max(1),
            (Spread::Chunks, true) => 1,
            (Spread::Chunks, false) => CHUNK,
        };
        let mut out = Vec::new();
        let mut first = 0;
        while first < self.budget {
            let count = size.min(self.budget - first);
            out.push((first, count));
            first += count;
        }
        out
    }

    /// The chunks this session runs: every one, or its shard's. An enumeration in one JVM
    /// runs every chunk of its own part of the frontier (the agent's `partition`).
    fn own_chunks(&self) -> Vec<(u64, u64)> {
        let chunked_shard = self.shard.filter(|_| self.spread == Spread::Chunks);
        self.chunks()
            .into_iter()
            .enumerate()
            .filter(|(i, _)| chunked_shard.is_none_or(|s| s.owns(*i as u64)))
            .map(|(_, c)| c)
            .collect()
    }

    /// What each JVM runs, in execution order. A sampling strategy's chunks go to `jobs` JVMs
    /// in turn, each JVM running all of its chunks (a JVM start and the JIT's warm-up cost
    /// more than many executions of a small program); otherwise a JVM per chunk.
    fn jvm_jobs(&self, chunks: &[(u64, u64)], jobs: usize) -> Vec<JvmJob> {
        if self.spread == Spread::Chunks && !self.fork {
            // Own chunks follow each other at a fixed distance (a shard's are every N-th).
            let apart = CHUNK * self.shard.map_or(1, |s| s.count);
            return chunks
                .iter()
                .take(jobs)
                .map(|&(first, _)| JvmJob {
                    plan: ChunkPlan {
                        first,
                        chunk: CHUNK,
                        stride: apart * jobs as u64,
                        end: self.budget,
                    },
                    several: true,
                })
                .collect();
        }
        chunks
            .iter()
            .map(|&(first, count)| JvmJob {
                plan: ChunkPlan {
                    first,
                    chunk: count,
                    stride: count,
                    end: first + count,
                },
                several: false,
            })
            .collect()
    }

    fn jvm_launch(
        &self,
        worker: usize,
        jobs: usize,
        cpus: usize,
        position: usize,
        job: &JvmJob,
        deadline: Option<Instant>,
    ) -> Launch {
        let mut launch = self.launch.clone();
        let first = job.plan.first;
        launch.set_option("executions", job.plan.len().to_string());
        launch.set_option("first-execution", first.to_string());
        if job.several {
            for (key, value) in job.plan.options() {
                launch.set_option(key, value);
            }
        }
        launch.set_option("keep-going", on_off(self.keep_going));
        if jobs > 1 {
            launch.set_option("pin", (worker % cpus).to_string());
        }
        if let Some(d) = deadline {
            let left = d
                .saturating_duration_since(Instant::now())
                .as_millis()
                .max(1);
            launch.set_option("time-limit-ms", left.to_string());
        }
        if let Some(at) = self.sample_of(position, job) {
            launch.set_option("record-at", at.to_string());
        }
        if self.carries_state() {
            let state = self.work.join("search-state.txt");
            launch.set_option("state", state.display().to_string());
        }
        if let (Some(shard), Spread::OneJvm) = (self.shard, self.spread) {
            launch.set_option("partition", shard.to_string());
        }
        launch.log = Some(self.logs.join(format!("jvm-{first}.log")));
        if self.private_cwd {
            let cwd = self.work.join(format!("cwd-{worker}"));
            let _ = std::fs::create_dir_all(&cwd);
            launch.cwd = Some(cwd);
        }
        launch
    }

    fn summarize(
        &self,
        runs: Vec<ChunkRun>,
        elapsed: Duration,
        deadline: Option<Instant>,
    ) -> Finished {
        let mut facts = Facts::default();
        let mut bugs = Vec::new();
        let mut inconclusive = Vec::new();
        let mut samples = Vec::new();
        let mut counted = Vec::new();
        let mut last: Option<(u64, String)> = None;
        let mut jvms_counted = 0usize;
        let first_bug = runs
            .iter()
            .flat_map(|r| &r.results)
            .filter(|r| r["outcome"] == "bug")
            .filter_map(|r| r["index"].as_u64())
            .min();
        for run in &runs {
            let mut this_jvm_counted = false;
            for r in &run.results {
                let index = r["index"].as_u64().unwrap_or(0);
                if !self.keep_going && first_bug.is_some_and(|b| index > b) {
                    continue;
                }
                counted.push(Counted::of(r));
                this_jvm_counted = true;
                if let Some(c) = r["coverage"].as_str().filter(|c| !c.is_empty()) {
                    if last.as_ref().is_none_or(|(i, _)| index >= *i) {
                        last = Some((index, c.to_string()));
                    }
                }
                counted.last().unwrap().add_to(&mut facts);
                if r["outcome"] == "pass" && r["schedule"].is_string() {
                    samples.push(Found {
                        result: r.clone(),
                        launch: run.launch.clone(),
                    });
                }
                if r["outcome"] == "inconclusive" {
                    inconclusive.push(Found {
                        result: r.clone(),
                        launch: run.launch.clone(),
                    });
                }
                if r["outcome"] == "bug" && (self.keep_going || Some(index) == first_bug) {
                    bugs.push(Found {
                        result: r.clone(),
                        launch: run.launch.clone(),
                    });
                }
            }
            jvms_counted += usize::from(this_jvm_counted);
        }
        bugs.sort_by_key(Found::index);
        let time_limited =
            deadline.is_some_and(|d| Instant::now() + Duration::from_millis(50) >= d);
        counted.sort_by_key(|c| c.index);
        Finished {
            executions: counted.len() as u64,
            bugs,
            inconclusive,
            seconds: elapsed.as_secs_f64(),
            facts,
            samples,
            time_limited,
            agent_coverage: last.map(|(_, c)| (c, jvms_counted == 1)),
            counted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(spread: Spread, budget: u64, fork: bool) -> Session {
        Session {
            launch: Launch::for_tests(),
            spread,
            budget,
            jobs: 3,
            fork,
            keep_going: false,
            time_limit: None,
            work: "/nonexistent".into(),
            logs: "/nonexistent".into(),
            private_cwd: false,
            progress: None,
            samples: 0,
            shard: None,
        }
    }

    #[test]
    fn chunks_do_not_depend_on_jobs() {
        let mut s = session(Spread::Chunks, 450, false);
        let a = s.chunks();
        s.jobs = 1;
        assert_eq!(a, s.chunks());
        assert_eq!(a, vec![(0, 200), (200, 200), (400, 50)]);
        assert_eq!(session(Spread::OneJvm, 450, false).chunks(), vec![(0, 450)]);
        assert_eq!(session(Spread::Chunks, 3, true).chunks().len(), 3);
    }

    #[test]
    fn a_sampling_strategys_jvms_take_the_chunks_in_turn() {
        let s = session(Spread::Chunks, 1050, false);
        let jobs = s.jvm_jobs(&s.own_chunks(), 2);
        let plans: Vec<ChunkPlan> = jobs.iter().map(|j| j.plan).collect();
        assert_eq!(
            plans,
            vec![
                ChunkPlan::new(0, 200, 400, 1050).unwrap(),
                ChunkPlan::new(200, 200, 400, 1050).unwrap()
            ]
        );
        assert!(jobs.iter().all(|j| j.several));
        assert_eq!(plans[0].len() + plans[1].len(), 1050);
        // A shard's JVMs take its own chunks in turn.
        let mut second = session(Spread::Chunks, 2050, false);
        second.shard = Some(Shard { index: 2, count: 4 });
        let jobs = second.jvm_jobs(&second.own_chunks(), 2);
        assert_eq!(jobs[0].plan, ChunkPlan::new(200, 200, 1600, 2050).unwrap());
        assert_eq!(jobs[1].plan, ChunkPlan::new(1000, 200, 1600, 2050).unwrap());
        // A shard with one chunk of its own runs only that one.
        let mut lone = session(Spread::Chunks, 1000, false);
        lone.shard = Some(Shard { index: 2, count: 4 });
        let jobs = lone.jvm_jobs(&lone.own_chunks(), 2);
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].plan.len(), 200);
        // Systematic searches and fork mode keep a JVM per chunk.
        let one = session(Spread::OneJvm, 450, false);
        assert_eq!(one.jvm_jobs(&one.own_chunks(), 3).len(), 1);
        assert!(!one.jvm_jobs(&one.own_chunks(), 3)[0].several);
        let fork = session(Spread::Chunks, 5, true);
        assert_eq!(fork.jvm_jobs(&fork.own_chunks(), 3).len(), 5);
    }

    #[test]
    fn shards_split_the_same_chunks_between_them() {
        let whole = session(Spread::Chunks, 1050, false).chunks();
        let mut parts = Vec::new();
        for index in 1..=4 {
            let mut s = session(Spread::Chunks, 1050, false);
            s.shard = Some(Shard { index, count: 4 });
            parts.extend(s.own_chunks());
        }
        parts.sort();
        assert_eq!(parts, whole);
        let mut second = session(Spread::Chunks, 1050, false);
        second.shard = Some(Shard { index: 2, count: 4 });
        assert_eq!(second.own_chunks(), vec![(200, 200), (1000, 50)]);
    }
}
