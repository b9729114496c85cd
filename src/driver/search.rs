//! A whole search, as `rankcheck test` and `rankcheck sweep` run it: the session over parallel
//! JVMs, then, for each bug, its report folder and a replay of the report in a fresh JVM. A bug
//! whose schedule does not reproduce it is never reported as a bug: it becomes a rankcheck
//! failure with the details (no false positives).

use super::jvm::{determinism_args, java_binary, on_off, Launch};
use super::progress::Progress;
use super::replay::{recorded_launch, replay};
use super::report::{
    add_steps, annotate, difference, load_recorded, replay_command, write_report, Expected, Origin,
};
use super::session::{Finished, Session};
use super::strategy::{Bounds, Spread, StrategyInfo};
use scheduler::strategy::NONPREEMPTIVE;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The program under test, ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    /// Instrumented class-path entries.
    pub classpath: Vec<PathBuf>,
    /// The test framework's class path (`Launch::framework`): non-empty when `main` is a JUnit
    /// test method, `CLASS#METHOD`.
    pub framework: Vec<PathBuf>,
    pub main: String,
    pub args: Vec<String>,
    pub fail_on_output: Vec<String>,
    pub fail_on_file: Vec<String>,
    pub expect_exit: i32,
    /// Run every JVM in its own scratch working directory.
    pub private_cwd: bool,
    /// The agent instruments the class path as it loads (`classpath::Mode::LoadTime`).
    pub load_time: bool,
    /// The classes before instrumentation, recorded in reports so that a replay runs the
    /// current classes (`None`: the report replays the class path it ran).
    pub origin: Option<Origin>,
    /// Classes the rewriter could not instrument (they run uncontrolled).
    pub uninstrumented_classes: usize,
    /// The rewriter's warnings, one line each (`classpath::Prepared::warning_lines`).
    pub warnings: Vec<String>,
}

/// Everything a search needs besides the program.
#[derive(Clone, Debug)]
pub struct Search {
    pub strategy: &'static StrategyInfo,
    /// Only the bounds the strategy reads.
    pub bounds: Bounds,
    /// `rankchecker` (default) or `chess` preemption counting.
    pub c_mode: Option<String>,
    /// ICB's happens-before pruning (`--no-prune` turns it off).
    pub prune: bool,
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
    /// When timed waits may time out (`idle` or `any`).
    pub timeouts: String,
    pub jvm_args: Vec<String>,
    /// The processor count the program sees (`availableProcessors()`); `None`: the machine's.
    pub cpus: Option<usize>,
    /// Field and array accesses inside the JDK's collections are scheduling points: `on`
    /// (once a second thread touched the object), `all` (always) or `off`.
    pub jdk_collections: String,
    /// `jdk_collections` is the default's `on` (not named): a clean search that may have
    /// skipped switches inside collections is run again with `all` (`cmd::search_args`); a
    /// shard cannot, and its merge says so.
    pub escalate: bool,
    /// Report folders go here.
    pub out: PathBuf,
    /// Where executions, bugs and phases are counted for the progress shown (`None`: nowhere).
    pub progress: Option<Progress>,
    /// JVMs whose last execution is replayed in a fresh JVM to check that an execution does
    /// not depend on what ran before it in the same JVM (`--check-determinism`).
    pub determinism_samples: usize,
    /// For each bug, also run the program once without preemptions (strategy
    /// `nonpreemptive`) to tell whether it fails whatever the schedule.
    pub schedule_check: bool,
    /// Shrink each bug's schedule (`driver::minimize`) within these limits; `None`: keep only
    /// the schedule found (`--no-minimize`).
    pub minimize: Option<super::minimize::Settings>,
    /// Run only this shard's part of the executions (`driver::shard`).
    pub shard: Option<super::shard::Shard>,
}

/// One bug, reported and replayed.
#[derive(Clone, Debug)]
pub struct Reported {
    pub execution: u64,
    pub kind: String,
    pub message: String,
    pub dir: PathBuf,
    /// It fails the same way in every schedule tried (the one without preemptions, and
    /// [`RANDOM_SCHEDULES`] random ones): it does not seem to depend on the schedule.
    pub schedule_independent: bool,
    /// The cause, from the steps of the replay (`explanation.txt`); empty when unknown.
    pub cause: Vec<String>,
    /// The minimal schedule, when the bug's schedule was shrunk (`minimal-schedule.txt`).
    pub minimal: Option<Box<super::minimize::Minimal>>,
    /// Why no smaller schedule was kept, when shrinking ran.
    pub unshrunk: Option<String>,
    /// What the agent noted about the failing execution (threads it did not control, threads
    /// left behind), to be shown with the bug.
    pub notes: Vec<String>,
    /// The member strategy that ran the failing execution, for a strategy made of members
    /// (`scheduler::strategy::member_of`).
    pub member: Option<&'static str>,
}

impl Reported {
    /// The "minimal schedule" line's text: the smallest schedule kept, or why there is none
    /// (nothing when shrinking did not run).
    pub fn minimal_summary(&self) -> Option<String> {
        match (&self.minimal, &self.unshrunk) {
            (Some(m), _) => Some(m.summary.clone()),
            (None, Some(why)) => Some(format!("none smaller kept: {why}")),
            (None, None) => None,
        }
    }

    /// The bug as `test --json` lists it (`"bugs"`).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "execution": self.execution,
            "kind": self.kind,
            "message": self.message,
            "report": self.dir.display().to_string(),
            "replay": super::report::replay_command(&self.dir),
            "schedule_independent": self.schedule_independent,
            "minimal": self.minimal.as_ref().map(|m| m.to_json()),
            "unshrunk": self.unshrunk,
            "member": self.member,
        })
    }
}

/// What a failing execution turned out to be.
#[derive(Debug)]
pub enum Verdict {
    /// Replayed in a fresh JVM: a bug of the program.
    Bug(Reported),
    /// Not a finding: it did not replay, or the watchdog ended it (a limit of rankcheck). Says
    /// what happened; the report folder is written all the same.
    NotABug { why: String, dir: PathBuf },
}

/// The words for a bug that fails in every schedule tried: the one without preemptions and
/// [`RANDOM_SCHEDULES`] random ones (one run without preemptions alone proves nothing: a lost
/// notification or a read before the write fails there and passes elsewhere).
pub const SCHEDULE_INDEPENDENT: &str =
    "fails in every schedule tried (it does not seem to depend on the schedule)";

/// Random schedules run, besides the one without preemptions, before a failure is said not to
/// depend on the schedule.
pub const RANDOM_SCHEDULES: u64 = 10;

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
            prune: true,
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
            timeouts: scheduler::Timeouts::default().name().into(),
            jvm_args: Vec::new(),
            cpus: None,
            jdk_collections: "on".into(),
            escalate: false,
            out,
            progress: None,
            // A sweep runs hundreds of searches: one more JVM each is too dear there.
            determinism_samples: 0,
            schedule_check: false,
            minimize: None,
            shard: None,
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
            ("timeouts".into(), self.timeouts.clone()),
            ("collections".into(), self.jdk_collections.clone()),
        ];
        if program.load_time {
            o.push(("instrument".into(), "load".into()));
        }
        if !program.framework.is_empty() {
            o.push(("root".into(), "test".into()));
        }
        for (k, v) in self.bounds.given() {
            o.push((k.into(), v.to_string()));
        }
        if let Some(mode) = &self.c_mode {
            o.push(("c-mode".into(), mode.clone()));
        }
        if !self.prune {
            o.push(("prune".into(), "off".into()));
        }
        o
    }

    /// Runs the search on `program`.
    pub fn run(&self, program: &Program) -> anyhow::Result<SearchResult> {
        let runtime = super::runtime::runtime()?;
        std::fs::create_dir_all(&self.out).map_err(|e| {
            crate::error::bad_input(format!("cannot create {}: {e}", self.out.display()))
        })?;
        let out = std::fs::canonicalize(&self.out)?;
        let id = unique();
        let work = out.join(format!(".work-{}-{id}", std::process::id()));
        let simple = super::report::short_name(&program.main);
        let logs = out
            .join("logs")
            .join(format!("{simple}-{}-{id}", std::process::id()));
        let launch = Launch {
            java: java_binary(),
            jvm_args: determinism_args(self.cpus)
                .into_iter()
                .chain(self.jvm_args.iter().cloned())
                .collect(),
            agent_options: self.agent_options(program),
            runtime,
            classpath: program.classpath.clone(),
            framework: program.framework.clone(),
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
            spread: Spread::of(self.strategy),
            budget: self.budget,
            jobs: self.jobs,
            fork: self.fork,
            keep_going: self.keep_going,
            time_limit: self.time_limit,
            work: work.clone(),
            logs: logs.clone(),
            private_cwd: program.private_cwd,
            progress: self.progress.clone(),
            samples: self.determinism_samples,
            shard: self.shard,
        };
        let result = session
            .run()
            .and_then(|finished| self.report(finished, &out, &work, program));
        let _ = std::fs::remove_dir_all(&work);
        // A failed search keeps every log (its error names them); otherwise the empty ones go.
        if result.is_ok() && keep_logs(&logs) {
            self.note(&format!(
                "rankcheck: note: JVM log(s) with warnings kept in {}",
                logs.display()
            ));
        }
        result
    }

    fn report(
        &self,
        finished: Finished,
        out: &Path,
        work: &Path,
        program: &Program,
    ) -> anyhow::Result<SearchResult> {
        let mut bugs = Vec::new();
        let mut unreproduced = Vec::new();
        // One time cap for every bug's minimization (with --keep-going there may be hundreds).
        let minimize_until = self
            .minimize
            .map(|s| (std::time::Instant::now() + s.time, s));
        for (i, found) in finished.bugs.iter().enumerate() {
            self.phase(Some("replaying the failure in a fresh JVM"));
            let scratch = work.join(format!("replay-{i}"));
            let minimize = minimize_until.and_then(|(until, s)| {
                let left = until.saturating_duration_since(std::time::Instant::now());
                (!left.is_zero()).then_some(super::minimize::Settings { time: left, ..s })
            });
            match confirm(
                out,
                &found.launch,
                &found.result,
                &scratch,
                program.origin.as_ref(),
                AfterReplay {
                    schedule_check: self.schedule_check,
                    minimize,
                    phase: &|what| self.phase(Some(what)),
                },
            )? {
                Verdict::Bug(reported) => bugs.push(reported),
                Verdict::NotABug { why, .. } => unreproduced.push(why),
            }
        }
        if !finished.samples.is_empty() {
            self.phase(Some("replaying a sampled execution in a fresh JVM"));
        }
        let nondeterminism = self.check_samples(&finished, work)?;
        self.phase(None);
        let mut inconclusive = Vec::new();
        for found in &finished.inconclusive {
            let launch = recorded_launch(&found.launch, found.index());
            let dir = write_report(out, &launch, &found.result, program.origin.as_ref())?;
            let message = found.result["message"].as_str().unwrap_or("").to_string();
            inconclusive.push((format!("execution {}: {message}", found.index()), dir));
        }
        // A search whose state spans the session, run in one JVM, states its own coverage;
        // otherwise (and for one that splits into shards, whose merge must say the same) the
        // coverage is stated from the facts of every JVM, merged, so that the text does not
        // depend on how many JVMs or shards ran it.
        let mut coverage = match (Spread::of(self.strategy), &finished.agent_coverage) {
            (Spread::OneJvm, Some((claim, true))) if !self.strategy.partitions => {
                format!("{} execution(s); {claim}", finished.executions)
            }
            _ => scheduler::session_coverage::statement(
                self.strategy.name,
                &scheduler::strategy::Bounds {
                    prune: self.prune,
                    ..self.bounds.to_scheduler()
                },
                &finished.facts,
            ),
        };
        if let (Some(shard), true) = (self.shard, self.strategy.exhaustive) {
            // A shard's exhaustion is of its part of the frontier only.
            coverage.push_str(&format!(
                " — for shard {shard}'s part of the search only; `rankcheck merge` of every \
                 shard states the whole search's coverage"
            ));
        }
        Ok(SearchResult {
            finished,
            bugs,
            unreproduced,
            inconclusive,
            coverage,
            nondeterminism,
        })
    }

    /// Prints `line` on stderr, with the progress bar out of its way.
    pub fn note(&self, line: &str) {
        match &self.progress {
            Some(p) => p.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Says what the search does besides executing, on the progress shown.
    fn phase(&self, what: Option<&str>) {
        if let Some(p) = &self.progress {
            p.phase(what);
        }
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
            let launch = recorded_launch(&sample.launch, sample.index());
            let dir = work.join(format!("sample-{i}"));
            std::fs::create_dir_all(&dir)?;
            let dir = write_report(&dir, &launch, &sample.result, None)?;
            let recorded = load_recorded(&dir).map_err(|e| anyhow::anyhow!(e))?;
            let replayed = replay(&recorded, &work.join(format!("sample-replay-{i}")), false)?;
            if let Some(what) = replayed.difference {
                let why = match replayed.result["kind"].as_str() {
                    Some("diverged") => replayed.result["message"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                    _ => what,
                };
                found.push(format!(
                    "execution {} ran differently when replayed in a fresh JVM: {why}",
                    sample.index()
                ));
            }
        }
        Ok(found)
    }
}

/// What [`confirm`] does once a failure replayed.
pub struct AfterReplay<'a> {
    /// Also run the program once without preemptions (a schedule-independent failure).
    pub schedule_check: bool,
    /// Shrink the schedule within these limits.
    pub minimize: Option<super::minimize::Settings>,
    /// Tells the progress line what runs now.
    pub phase: &'a dyn Fn(&str),
}

/// Writes the report of the failing execution `result` (run by `launch`) under `out` and
/// replays it in a fresh JVM (scratch files in `work`): only a failure that replays is a bug
/// (no false positives). With `schedule_check`, a bug is also run once without preemptions.
/// A failure that shows the program's classes cannot be loaded (a class missing from the class
/// path, a class file the JDK cannot load) is bad input, not a bug. Shared by `test`, `sweep`
/// and `run`.
pub fn confirm(
    out: &Path,
    launch: &Launch,
    result: &Value,
    work: &Path,
    origin: Option<&Origin>,
    after: AfterReplay<'_>,
) -> anyhow::Result<Verdict> {
    let AfterReplay {
        schedule_check,
        minimize,
        phase,
    } = after;
    let index = result["index"].as_u64().unwrap_or(0);
    if let Some(why) = class_loading_failure(result) {
        return Err(crate::error::bad_input(why));
    }
    // The report records the run as one execution (after its JVM's history); a private working
    // directory is recreated on replay.
    let launch = recorded_launch(launch, index);
    let dir = write_report(out, &launch, result, origin)?;
    let kind = result["kind"].as_str().unwrap_or("bug").to_string();
    let message = result["message"].as_str().unwrap_or("").to_string();
    let member = scheduler::strategy::member_of(launch.option("strategy").unwrap_or(""), index);
    if let Some(member) = member {
        annotate(&dir, "member", member.into())?;
    }
    if result["bound"] == "watchdog" {
        // The watchdog's case is a limit of rankcheck (a thread blocked where the model cannot
        // see), not a finding: never reported as a bug of the program.
        return Ok(Verdict::NotABug {
            why: format!("execution {index}: {message}; stacks in {}", dir.display()),
            dir,
        });
    }
    let recorded = load_recorded(&dir).map_err(|e| anyhow::anyhow!(e))?;
    let replayed = replay(&recorded, work, true)?;
    if !replayed.reproduced {
        let got = replayed.difference.clone().unwrap_or_default();
        std::fs::write(
            dir.join("NOT-REPRODUCED.txt"),
            format!(
                "{got}\n\nthe replay's result:\n{}\n",
                serde_json::to_string_pretty(&replayed.result).unwrap_or_default()
            ),
        )?;
        return Ok(Verdict::NotABug {
            why: format!(
                "execution {index} failed ({kind}: {message}) but replaying its schedule did \
                 not: {got}; details in {} ({})",
                dir.display(),
                replay_command(&dir)
            ),
            dir,
        });
    }
    let cause = add_steps(&dir, &launch.classpath, &replayed.result)?;
    // Found by `nonpreemptive` itself: it already ran without a switch.
    let schedule_independent = schedule_check
        && ((launch.option("strategy") == Some(NONPREEMPTIVE)
            && launch.option("replay").is_none())
            || fails_the_same_way(&launch, NONPREEMPTIVE, 1, &kind, &message, work))
        && fails_the_same_way(
            &launch,
            scheduler::strategy::RANDOM,
            RANDOM_SCHEDULES,
            &kind,
            &message,
            work,
        );
    if schedule_independent {
        std::fs::write(
            dir.join("SCHEDULE-INDEPENDENT.txt"),
            format!(
                "This failure {SCHEDULE_INDEPENDENT}: one execution under strategy \
                 nonpreemptive (no preemption) and {RANDOM_SCHEDULES} under strategy random \
                 (seed 1) fail the same way.\n"
            ),
        )?;
    }
    annotate(&dir, "schedule_independent", schedule_independent.into())?;
    // A failure without any switch has nothing to shrink.
    let shrunk = match minimize.filter(|_| !schedule_independent) {
        Some(settings) => {
            phase("shrinking the failing schedule (--no-minimize skips this)");
            Some(super::minimize::minimize_report(
                &dir,
                &launch,
                result,
                &replayed.result,
                &work.join("minimize"),
                settings,
            )?)
        }
        None => None,
    };
    let (minimal, unshrunk) = match shrunk {
        Some(Ok(minimal)) => (Some(minimal), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    let cause = minimal
        .as_ref()
        .filter(|m| !m.cause.is_empty())
        .map_or(cause, |m| m.cause.clone());
    Ok(Verdict::Bug(Reported {
        execution: index,
        kind,
        message,
        dir,
        schedule_independent,
        cause,
        minimal: minimal.map(Box::new),
        unshrunk,
        notes: result["notes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
        member,
    }))
}

/// True when one execution of `launch`'s program under strategy `nonpreemptive` (a fresh JVM,
/// no preemption at all) fails as `kind`/`message` did. A JVM that fails to run says false.
fn fails_the_same_way(
    launch: &Launch,
    strategy: &str,
    executions: u64,
    kind: &str,
    message: &str,
    work: &Path,
) -> bool {
    let mut once = launch.clone();
    for key in ["replay", "state", "time-limit-ms", "c-mode"] {
        once.remove_option(key);
    }
    once.set_option("strategy", strategy);
    once.set_option("executions", executions.to_string());
    once.set_option("seed", "1");
    once.set_option("keep-going", "on");
    once.set_option("max-inconclusive", executions.to_string());
    if std::fs::create_dir_all(work).is_err() {
        return false;
    }
    once.log = Some(work.join(format!("{strategy}-jvm.log")));
    match once.run(&work.join(format!("{strategy}.jsonl"))) {
        Ok(run) => {
            run.results.len() as u64 == executions
                && run.results.iter().all(|r| {
                    // The same failure at whatever step: the schedule is another one.
                    let expected = Expected {
                        outcome: "bug".into(),
                        kind: kind.into(),
                        message: message.into(),
                        steps: None,
                    };
                    difference(&expected, r).is_none()
                })
        }
        Err(_) => false,
    }
}

/// Throwables that say the program's classes could not be loaded, not that threads interleaved
/// badly.
const CLASS_LOADING_ERRORS: &[&str] = &[
    "java.lang.NoClassDefFoundError",
    "java.lang.ClassNotFoundException",
    "java.lang.UnsupportedClassVersionError",
    "java.lang.ClassFormatError",
    "java.lang.LinkageError",
    "java.lang.IncompatibleClassChangeError",
    "java.lang.NoSuchMethodError",
    "java.lang.NoSuchFieldError",
    "java.lang.AbstractMethodError",
];

/// For an execution that died of a class-loading throwable (uncaught `NoClassDefFoundError`,
/// `ClassNotFoundException`, `UnsupportedClassVersionError`, a `LinkageError`): the one line
/// that says which class, as bad input.
pub fn class_loading_failure(result: &Value) -> Option<String> {
    if result["kind"] != "uncaught" {
        return None;
    }
    let message = result["message"].as_str().unwrap_or("");
    // "uncaught in thread t1 (name): java.lang.NoClassDefFoundError: p/Helper"
    let thrown = message.split_once("): ").map_or(message, |(_, t)| t);
    let thrown = thrown.lines().next().unwrap_or("").trim();
    let (class, detail) = thrown.split_once(':').unwrap_or((thrown, ""));
    let class = class.trim();
    if !CLASS_LOADING_ERRORS.contains(&class) {
        return None;
    }
    let detail = detail.trim();
    let short = class.rsplit('.').next().unwrap_or(class);
    let what = match short {
        "UnsupportedClassVersionError" => format!(
            "a class of the program was compiled for a newer Java than the running JDK: {detail}"
        ),
        "NoClassDefFoundError" | "ClassNotFoundException" => format!(
            "class {} could not be loaded ({short}): is it on --cp?",
            detail.replace('/', ".")
        ),
        _ => format!(
            "the program's classes do not fit together ({short}: {detail}): is every class it \
             needs on --cp, in the version it was compiled against?"
        ),
    };
    Some(format!(
        "execution {} could not load the program's classes, so it says nothing about \
         concurrency: {what}",
        result["index"]
    ))
}

/// Removes the empty JVM logs of `dir` (and `dir` itself, and its parent, when nothing is left
/// in them); true when a log with something in it is kept.
fn keep_logs(dir: &Path) -> bool {
    let mut kept = false;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let empty = e.metadata().is_ok_and(|m| m.len() == 0);
        if empty {
            let _ = std::fs::remove_file(e.path());
        } else {
            kept = true;
        }
    }
    if !kept {
        let _ = std::fs::remove_dir(dir);
        if let Some(parent) = dir.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
    kept
}

/// A per-process counter, so that two searches of one process (a sweep) never share scratch
/// folders.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn class_loading_throwables_are_bad_input_and_others_are_not() {
        let missing = json!({"index": 4, "kind": "uncaught",
            "message": "uncaught in thread t1 (worker): java.lang.NoClassDefFoundError: app/Helper"});
        let why = class_loading_failure(&missing).unwrap();
        assert!(
            why.contains("class app.Helper could not be loaded"),
            "{why}"
        );
        assert!(why.contains("is it on --cp?"), "{why}");
        let version = json!({"index": 0, "kind": "uncaught",
            "message": "uncaught in thread t0 (main): java.lang.UnsupportedClassVersionError: app/Helper has been compiled by a more recent version"});
        assert!(class_loading_failure(&version)
            .unwrap()
            .contains("newer Java"));
        for (kind, message) in [
            (
                "uncaught",
                "uncaught in thread t1 (w): java.lang.IllegalStateException: NoClassDefFoundError",
            ),
            (
                "uncaught",
                "uncaught in thread t0 (main): java.lang.AssertionError: lost update",
            ),
            ("deadlock", "java.lang.NoClassDefFoundError: x"),
        ] {
            let r = json!({"index": 0, "kind": kind, "message": message});
            assert_eq!(class_loading_failure(&r), None, "{message}");
        }
    }
}
