//! A whole search, as `rankcheck test` and `rankcheck sweep` run it: the session over parallel
//! JVMs, then, for each bug, its report folder and a replay of the report in a fresh JVM. A bug
//! whose schedule does not reproduce it is never reported as a bug: it becomes a rankcheck
//! failure with the details (no false positives).

use super::coverage;
use super::jvm::{identity_hash_args, java_binary, on_off, Launch};
use super::replay::replay;
use super::report::{load_recorded, replay_command, write_report};
use super::session::{Finished, Session};
use super::strategy::{Bounds, StrategyInfo};
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
                let got = format!(
                    "{} ({}): {}",
                    replayed.result["outcome"].as_str().unwrap_or("?"),
                    replayed.result["kind"].as_str().unwrap_or("?"),
                    replayed.result["message"].as_str().unwrap_or("")
                );
                std::fs::write(
                    dir.join("NOT-REPRODUCED.txt"),
                    format!("replay gave: {got}\n"),
                )?;
                unreproduced.push(format!(
                    "execution {} failed ({kind}: {message}) but replaying its schedule gave {got}; \
                     details in {} ({})",
                    found.index(),
                    dir.display(),
                    replay_command(&dir)
                ));
            }
        }
        let mut inconclusive = Vec::new();
        for found in &finished.inconclusive {
            let mut launch = found.launch.clone();
            launch.set_option("first-execution", found.index().to_string());
            let dir = write_report(out, &launch, &found.result)?;
            let message = found.result["message"].as_str().unwrap_or("").to_string();
            inconclusive.push((format!("execution {}: {message}", found.index()), dir));
        }
        // The strategy's own statement (with its count of distinct happens-before graphs) speaks
        // for the session when one JVM ran it all; otherwise each JVM knew only its chunk.
        let coverage = match &finished.agent_coverage {
            Some((claim, true)) => format!("{} execution(s); {claim}", finished.executions),
            _ => coverage::statement(self.strategy.name, &self.bounds, &finished.seen),
        };
        Ok(SearchResult {
            finished,
            bugs,
            unreproduced,
            inconclusive,
            coverage,
        })
    }
}

/// A per-process counter, so that two searches of one process (a sweep) never share scratch
/// folders.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}
