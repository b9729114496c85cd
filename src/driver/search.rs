//! A whole search, as `rankcheck test` and `rankcheck sweep` run it: the session over parallel
//! JVMs, then, for each bug, its report folder and a replay of the report in a fresh JVM. A bug
//! whose schedule does not reproduce it is never reported as a bug: it becomes a rankcheck
//! failure with the details (no false positives).

use super::jvm::{identity_hash_args, java_binary, on_off, Launch};
use super::replay::replay;
use super::report::{load_recorded, replay_command, write_report};
use super::session::{Finished, Session};
use super::strategy::{Bounds, Spread, StrategyInfo};
use std::path::PathBuf;
use std::time::Duration;

/// The program under test, ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    /// Instrumented class-path entries.
    pub classpath: Vec<PathBuf>,
    pub main: String,
    pub args: Vec<String>,
    pub fail_on_output: Vec<String>,
    pub fail_on_file: Vec<String>,
    pub expect_exit: i32,
    /// Run every JVM in its own scratch working directory.
    pub private_cwd: bool,
    /// The agent instruments the class path as it loads (`classpath::Mode::LoadTime`).
    pub load_time: bool,
}

/// Everything a search needs besides the program.
#[derive(Clone, Debug)]
pub struct Search {
    pub strategy: &'static StrategyInfo,
    /// Only the bounds the strategy reads.
    pub bounds: Bounds,
    /// `rankchecker` (default) or `chess` preemption counting.
    pub c_mode: Option<String>,
    pub seed: u64,
    pub budget: u64,
    pub jobs: usize,
    pub fork: bool,
    pub keep_going: bool,
    pub time_limit: Option<Duration>,
    pub max_steps: u64,
    pub livelock_window: u64,
    pub timeout_ms: u64,
    pub spurious: bool,
    pub jvm_args: Vec<String>,
    /// Report folders go here.
    pub out: PathBuf,
    pub progress: bool,
    /// JVMs whose last execution is replayed in a fresh JVM to check that an execution does
    /// not depend on what ran before it in the same JVM (`--check-determinism`).
    pub determinism_samples: usize,
}

/// One bug, reported and replayed.
#[derive(Clone, Debug)]
pub struct Reported {
    pub execution: u64,
    pub kind: String,
    pub message: String,
    pub dir: PathBuf,
}

/// How a search ended.
#[derive(Debug)]
pub struct SearchResult {
    pub finished: Finished,
    /// Bugs whose replay reproduced them.
    pub bugs: Vec<Reported>,
    /// Failing executions whose replay did not reproduce them: rankcheck's own failures.
    pub unreproduced: Vec<String>,
    /// Executions rankcheck could not control (agent outcome `inconclusive`): the message
    /// (which thread was blocked where) and the report folder.
    pub inconclusive: Vec<(String, PathBuf)>,
    pub coverage: String,
    /// Sampled executions that did not replay the same in a fresh JVM: what differed.
    pub nondeterminism: Vec<String>,
}

impl Search {
    /// A search as the sweep and the benchmarks run it: one JVM at a time, no progress bar,
    /// stop at the first bug, the default step bound and a 10 s execution bound.
    pub fn quiet(
        strategy: &'static StrategyInfo,
        bounds: Bounds,
        seed: u64,
        budget: u64,
        out: PathBuf,
    ) -> Search {
        Search {
            strategy,
            bounds,
            c_mode: None,
            seed,
            budget,
            jobs: 1,
            fork: false,
            keep_going: false,
            time_limit: None,
            max_steps: scheduler::Config::default().max_steps,
            livelock_window: scheduler::Config::default().livelock_window,
            timeout_ms: 10_000,
            spurious: false,
            jvm_args: Vec::new(),
            out,
            progress: false,
            // A sweep runs hundreds of searches: one more JVM each is too dear there.
            determinism_samples: 0,
        }
    }

    /// The agent options of this search (without the per-JVM ones).
    pub fn agent_options(&self, program: &Program) -> Vec<(String, String)> {
        let mut o: Vec<(String, String)> = vec![
            ("strategy".into(), self.strategy.name.into()),
            ("seed".into(), self.seed.to_string()),
            ("max-steps".into(), self.max_steps.to_string()),
            ("livelock-window".into(), self.livelock_window.to_string()),
            ("timeout-ms".into(), self.timeout_ms.to_string()),
            ("expect-exit".into(), program.expect_exit.to_string()),
            ("spurious".into(), on_off(self.spurious)),
        ];
        if program.load_time {
            o.push(("instrument".into(), "load".into()));
        }
        for (k, v) in self.bounds.given() {
            o.push((k.into(), v.to_string()));
        }
        if let Some(mode) = &self.c_mode {
            o.push(("c-mode".into(), mode.clone()));
        }
        o
    }

    /// Runs the search on `program`.
    pub fn run(&self, program: &Program) -> anyhow::Result<SearchResult> {
        let runtime = crate::cmd::rt::runtime()?;
        std::fs::create_dir_all(&self.out).map_err(|e| {
            crate::error::bad_input(format!("cannot create {}: {e}", self.out.display()))
        })?;
        let out = std::fs::canonicalize(&self.out)?;
        let work = out.join(format!(".work-{}-{}", std::process::id(), unique()));
        let launch = Launch {
            java: java_binary(),
            jvm_args: identity_hash_args()
                .into_iter()
                .chain(self.jvm_args.iter().cloned())
                .collect(),
            agent_options: self.agent_options(program),
            runtime,
            classpath: program.classpath.clone(),
            main: program.main.clone(),
            fail_on_output: program.fail_on_output.clone(),
            fail_on_file: program.fail_on_file.clone(),
            args: program.args.clone(),
            timeout_ms: self.timeout_ms,
            cwd: None,
            log: None,
        };
        let session = Session {
            launch,
            spread: self.strategy.spread,
            budget: self.budget,
            jobs: self.jobs,
            fork: self.fork,
            keep_going: self.keep_going,
            time_limit: self.time_limit,
            work: work.clone(),
            private_cwd: program.private_cwd,
            progress: self.progress,
            samples: self.determinism_samples,
        };
        let result = session
            .run()
            .and_then(|finished| self.report(finished, &out, &work));
        let _ = std::fs::remove_dir_all(&work);
        result
    }

    fn report(
        &self,
        finished: Finished,
        out: &std::path::Path,
        work: &std::path::Path,
    ) -> anyhow::Result<SearchResult> {
        let mut bugs = Vec::new();
        let mut unreproduced = Vec::new();
        for (i, found) in finished.bugs.iter().enumerate() {
            let mut launch = found.launch.clone();
            // The report records the run as one execution; a private working directory is
            // recreated on replay.
            launch.set_option("first-execution", found.index().to_string());
            let dir = write_report(out, &launch, &found.result)?;
            if found.result["bound"] == "watchdog" {
                // The watchdog's case is a limit of rankcheck (a thread blocked where the model
                // cannot see), not a finding: never reported as a bug of the program.
                unreproduced.push(format!(
                    "execution {}: {}; stacks in {}",
                    found.index(),
                    found.result["message"].as_str().unwrap_or(""),
                    dir.display()
                ));
                continue;
            }
            let recorded = load_recorded(&dir).map_err(|e| anyhow::anyhow!(e))?;
            let replayed = replay(&recorded, &work.join(format!("replay-{i}")))?;
            let kind = found.result["kind"].as_str().unwrap_or("bug").to_string();
            let message = found.result["message"].as_str().unwrap_or("").to_string();
            if replayed.reproduced {
                bugs.push(Reported {
                    execution: found.index(),
                    kind,
                    message,
                    dir,
                });
            } else {
                let got = replayed.difference.clone().unwrap_or_default();
                std::fs::write(
                    dir.join("NOT-REPRODUCED.txt"),
                    format!(
                        "{got}\n\nthe replay's result:\n{}\n",
                        serde_json::to_string_pretty(&replayed.result).unwrap_or_default()
                    ),
                )?;
                unreproduced.push(format!(
                    "execution {} failed ({kind}: {message}) but replaying its schedule did not: {got}; \
                     details in {} ({})",
                    found.index(),
                    dir.display(),
                    replay_command(&dir)
                ));
            }
        }
        let nondeterminism = self.check_samples(&finished, work)?;
        let mut inconclusive = Vec::new();
        for found in &finished.inconclusive {
            let mut launch = found.launch.clone();
            launch.set_option("first-execution", found.index().to_string());
            let dir = write_report(out, &launch, &found.result)?;
            let message = found.result["message"].as_str().unwrap_or("").to_string();
            inconclusive.push((format!("execution {}: {message}", found.index()), dir));
        }
        // A search whose state spans the session (one JVM, or JVMs that hand the state on)
        // states its own coverage; a sampling search is stated from the facts of every JVM,
        // merged, so that the text does not depend on how many JVMs ran it.
        let coverage = match (&self.strategy.spread, &finished.agent_coverage) {
            (Spread::OneJvm, Some((claim, _))) => {
                format!("{} execution(s); {claim}", finished.executions)
            }
            _ => scheduler::session_coverage::statement(
                self.strategy.name,
                &self.bounds.to_scheduler(),
                &finished.facts,
            ),
        };
        Ok(SearchResult {
            finished,
            bugs,
            unreproduced,
            inconclusive,
            coverage,
            nondeterminism,
        })
    }

    /// Replays each sampled passing execution in a fresh JVM: an execution that ran after
    /// others in its JVM must do the same as the first execution of a new one, or a bug found
    /// there might not replay (and a replay would not show what the search saw).
    fn check_samples(
        &self,
        finished: &Finished,
        work: &std::path::Path,
    ) -> anyhow::Result<Vec<String>> {
        let mut found = Vec::new();
        for (i, sample) in finished.samples.iter().enumerate() {
            let mut launch = sample.launch.clone();
            launch.set_option("first-execution", sample.index().to_string());
            let dir = work.join(format!("sample-{i}"));
            std::fs::create_dir_all(&dir)?;
            let dir = write_report(&dir, &launch, &sample.result)?;
            let recorded = load_recorded(&dir).map_err(|e| anyhow::anyhow!(e))?;
            let replayed = replay(&recorded, &work.join(format!("sample-replay-{i}")))?;
            if let Some(what) = replayed.difference {
                let why = match replayed.result["kind"].as_str() {
                    Some("diverged") => replayed.result["message"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                    _ => what,
                };
                found.push(format!(
                    "execution {} ran differently when replayed alone in a fresh JVM: {why}",
                    sample.index()
                ));
            }
        }
        Ok(found)
    }
}

/// A per-process counter, so that two searches of one process (a sweep) never share scratch
/// folders.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}
