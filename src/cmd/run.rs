//! `rankcheck run` (docs/CLI.md): controlled executions of a program in a JVM under the agent;
//! prints each execution's outcome and, on a bug, writes a report folder with the exact
//! `rankcheck replay …` command.
//!
//! The JVM launch, the cached instrumentation and the report folder live in `crate::driver`,
//! shared with `test`, `replay` and `sweep`; [`launch`] here maps `run`'s flags onto it. The agent's option string and the result
//! lines are documented in `agent/PROTOCOL.md`.

use crate::driver::classpath::Mode;
use crate::driver::jvm::{java_binary, on_off, Launch};
use crate::driver::progress::{LiveCount, Shown};
use crate::driver::report::{replay_command, write_report};
use crate::driver::runtime::Runtime;
use crate::driver::search::{confirm, AfterReplay, Verdict, SCHEDULE_INDEPENDENT};
use crate::error::{bad_input, Outcome};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The program's class path (jars and directories, `:`-separated), as built or already
    /// instrumented.
    #[arg(long)]
    pub cp: String,
    /// The class whose `main` runs.
    #[arg(long)]
    pub main: String,
    #[command(flatten)]
    pub strategy: super::search_args::StrategyArgs,
    /// Executions to run (in one JVM unless --fork).
    #[arg(long, default_value_t = 1)]
    pub executions: u64,
    #[command(flatten)]
    pub limits: super::search_args::LimitArgs,
    #[command(flatten)]
    pub minimize: super::search_args::MinimizeArgs,
    /// How long the running thread may sit blocked where rankcheck cannot see (an
    /// uninstrumented lock or queue) before the watchdog ends the execution, in milliseconds.
    #[arg(long, default_value_t = 2_000)]
    pub block_ms: u64,
    #[command(flatten)]
    pub oracles: super::search_args::OracleArgs,
    #[command(flatten)]
    pub waits: super::search_args::WaitArgs,
    #[command(flatten)]
    pub report: super::search_args::ReportArgs,
    #[command(flatten)]
    pub launch: super::search_args::LaunchArgs,
    /// Follow this recorded schedule (one execution) instead of a strategy.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Index of the first execution: to replay execution N of an earlier run, give N (pinned
    /// hash codes, clocks and random numbers depend on it).
    #[arg(long, default_value_t = 0)]
    pub first_execution: u64,
    /// Pin the JVM to one CPU: off | auto (the CPU it starts on) | N.
    #[arg(long, default_value = "off")]
    pub pin: String,
    #[command(flatten)]
    pub jvm: super::search_args::JvmArgs,
    /// Leave identity hash codes of objects that are not the execution's own (the JDK's, made
    /// before the execution or inside JDK code) to the JVM. By default the JVM runs with
    /// `-XX:hashCode=2`, which makes those all equal, so that, e.g., iterating a HashSet of
    /// such objects goes the same way in every execution and in a replay (the JVM's own
    /// identity hashes depend on how many threads it created before, so they differ between
    /// the executions of one JVM). The execution's own objects (its threads, instances of the
    /// program's classes, plain and `java.util.concurrent` objects the program's code makes) get
    /// distinct pinned hashes either way.
    #[arg(long)]
    pub jvm_identity_hashes: bool,
    /// Print the program's output of every execution.
    #[arg(long)]
    pub show_output: bool,
    /// Model java.util.concurrent (locks, conditions, latches, semaphores, queues, pools,
    /// atomics) by rewriting the JDK's classes as they load: on or off.
    #[arg(long, default_value = "on")]
    pub juc: String,
    /// The program's arguments.
    #[arg(last = true)]
    pub args: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    crate::driver::strategy::lookup(&args.strategy.strategy)?;
    if args.executions == 0 {
        return Err(bad_input("--executions must be at least 1"));
    }
    if let Some(r) = &args.replay {
        if !r.is_file() {
            return Err(bad_input(format!("{}: no such schedule file", r.display())));
        }
        crate::driver::replay::check_schedule(r)?;
    }
    args.oracles.check()?;
    if !matches!(args.juc.as_str(), "on" | "off") {
        return Err(bad_input(format!(
            "--juc wants on or off, not {:?}",
            args.juc
        )));
    }
    let mode = if args.launch.load_time {
        Mode::LoadTime
    } else {
        Mode::All
    };
    let prepared = crate::driver::classpath::prepare_report(&args.cp, mode)?;
    crate::driver::classpath::warn(&prepared.warning_lines());
    let cp = prepared.entries;
    let origin = crate::driver::report::Origin::of(&args.cp, mode, None);
    let rt = crate::driver::runtime::runtime()?;
    let work = scratch_dir(&args.report.out)?;
    let mut any_bug = false;
    let jvms: Vec<(u64, u64)> = if args.launch.fork && args.replay.is_none() {
        (0..args.executions)
            .map(|i| (args.first_execution + i, 1))
            .collect()
    } else {
        vec![(
            0,
            if args.replay.is_some() {
                1
            } else {
                args.executions
            },
        )]
        .into_iter()
        .map(|(i, n)| (i + args.first_execution, n))
        .collect()
    };
    let started = Instant::now();
    // Never silent for long (docs/CLI.md, "Progress"): executions as they end, the replay of
    // a failure. Results go to stdout; the bar steps aside for them.
    let shown = Shown::start();
    let progress = shown.handle();
    progress.begin(String::new(), Some(args.executions), None);
    let say = |text: String| progress.suspend(|| println!("{text}"));
    let mut executions = 0u64;
    let mut uncontrolled = Vec::new();
    let mut unreproduced = Vec::new();
    for (first, count) in jvms {
        let mut launch = launch(&args, &cp, &rt, first, count);
        if args.launch.fork && args.replay.is_none() {
            // A strategy with a search state (ICB) carries it from JVM to JVM.
            let state = work.join("search-state.txt");
            launch.set_option("state", state.display().to_string());
        }
        let results_path = work.join(format!("results-{first}.jsonl"));
        let live = LiveCount::new(Some(&progress), &results_path);
        let ran = launch.run_cancellable(&results_path, &|| {
            live.poll();
            false
        })?;
        live.finish(ran.results.len() as u64);
        for result in &ran.results {
            executions += 1;
            say(describe_result(result, args.show_output));
            if result["outcome"] == "inconclusive" || result["bound"] == "watchdog" {
                // A limit of rankcheck, not a finding (see the message): reported, not a bug.
                let dir = write_report(&args.report.out, &launch, result, Some(&origin))?;
                say(format!("  report: {}", dir.display()));
                say(
                    "  not a bug of the program: rankcheck could not control this execution".into(),
                );
                uncontrolled.push((result["message"].as_str().unwrap_or("").to_string(), dir));
            } else if result["outcome"] == "bug" {
                // As `test` does: reported as a bug only once its schedule replays it.
                let scratch = work.join(format!("replay-{executions}"));
                progress.phase(Some("replaying the failure in a fresh JVM"));
                let verdict = confirm(
                    &args.report.out,
                    &launch,
                    result,
                    &scratch,
                    Some(&origin),
                    AfterReplay {
                        schedule_check: true,
                        minimize: args.minimize.settings(),
                        phase: &|what| progress.phase(Some(what)),
                    },
                )?;
                progress.phase(None);
                match verdict {
                    Verdict::Bug(bug) => {
                        any_bug = true;
                        say("  replayed: the recorded schedule reproduces it".into());
                        for line in &bug.cause {
                            say(format!("  {}", line.trim_start()));
                        }
                        if bug.schedule_independent {
                            say(format!("  note: it {SCHEDULE_INDEPENDENT}"));
                        }
                        if let Some(m) = bug.minimal_summary() {
                            say(format!("  minimal schedule: {}", m));
                        }
                        if let Some(l) = bug.minimal.as_ref().and_then(|m| m.other_message_line()) {
                            say(format!("  {l}"));
                        }
                        say(format!("  report: {}", bug.dir.display()));
                        say(format!("  replay: {}", replay_command(&bug.dir)));
                    }
                    Verdict::NotABug { why, dir } => {
                        say(format!("  report: {}", dir.display()));
                        say(format!("  NOT a bug: {why}"));
                        unreproduced.push(why);
                    }
                }
            }
        }
        // The strategy has nothing left, or (one JVM per execution, so the agent's own cap
        // cannot count) the program keeps blocking where rankcheck cannot see.
        let exhausted = ran.results.iter().any(|r| r["exhausted"] == true);
        if (any_bug && !args.report.keep_going)
            || exhausted
            || uncontrolled.len() >= MAX_INCONCLUSIVE
        {
            break;
        }
    }
    println!(
        "rankcheck: {executions} execution(s) in {:.2} s, {}",
        started.elapsed().as_secs_f64(),
        if any_bug { "bug found" } else { "no bug found" }
    );
    let _ = std::fs::remove_dir_all(&work);
    if !any_bug && !unreproduced.is_empty() {
        anyhow::bail!(
            "nothing is reported as a bug (a failure that does not replay is not a finding): {}",
            unreproduced.join("; ")
        );
    }
    if let (false, Some((message, dir))) = (any_bug, uncontrolled.first()) {
        return Err(crate::error::Inconclusive(format!(
            "{} of {executions} execution(s) gave no verdict: {message}; report in {} \
             (nothing is reported as a bug)",
            uncontrolled.len(),
            dir.display()
        ))
        .into());
    }
    Ok(if any_bug {
        Outcome::Bug
    } else {
        Outcome::Clean
    })
}

/// One execution's outcome as `run` prints it (several lines without a trailing newline).
fn describe_result(r: &Value, show_output: bool) -> String {
    let bound = r["bound"]
        .as_str()
        .map(|b| format!(" [bound: {b}]"))
        .unwrap_or_default();
    let mut out = format!(
        "execution {}: {} ({}) in {} steps, {} ms{bound}: {}",
        r["index"],
        r["outcome"].as_str().unwrap_or("?"),
        r["kind"].as_str().unwrap_or("?"),
        r["steps"],
        r["millis"],
        r["message"].as_str().unwrap_or("")
    );
    for note in r["notes"].as_array().into_iter().flatten() {
        out.push_str(&format!("\n  note: {}", note.as_str().unwrap_or("")));
    }
    if show_output {
        for stream in ["stdout", "stderr"] {
            let text = r[stream].as_str().unwrap_or("");
            if !text.is_empty() {
                out.push_str(&format!("\n  --- {stream} ---\n{}", text.trim_end()));
            }
        }
    }
    out
}

/// A directory for one rankcheck process's temporary files, inside `out`.
fn scratch_dir(out: &Path) -> anyhow::Result<PathBuf> {
    let dir = out.join(format!(".work-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Inconclusive executions after which a forked run stops (the agent's `max-inconclusive`).
const MAX_INCONCLUSIVE: usize = 3;

/// The launch `rankcheck run` makes for executions `first .. first + count`.
fn launch(args: &Args, cp: &[PathBuf], rt: &Runtime, first: u64, count: u64) -> Launch {
    let mut o: Vec<(String, String)> = vec![
        ("strategy".into(), args.strategy.strategy.clone()),
        ("seed".into(), args.strategy.seed.to_string()),
        ("executions".into(), count.to_string()),
        ("first-execution".into(), first.to_string()),
        ("max-steps".into(), args.limits.max_steps.to_string()),
        (
            "livelock-window".into(),
            args.limits.livelock_window.to_string(),
        ),
        ("timeout-ms".into(), args.limits.timeout_ms.to_string()),
        ("block-ms".into(), args.block_ms.to_string()),
        (
            "expect-exit".into(),
            args.oracles.expect_exit.unwrap_or(0).to_string(),
        ),
        ("spurious".into(), on_off(args.waits.spurious)),
        ("timeouts".into(), args.waits.timeouts.clone()),
        ("keep-going".into(), on_off(args.report.keep_going)),
        ("pin".into(), args.pin.clone()),
        ("juc".into(), args.juc.clone()),
    ];
    if args.launch.load_time {
        o.push(("instrument".into(), "load".into()));
    }
    for (key, value) in args.strategy.bounds().given() {
        o.push((key.into(), value.to_string()));
    }
    if let Some(mode) = &args.strategy.c_mode {
        o.push(("c-mode".into(), mode.clone()));
    }
    if let Some(r) = &args.replay {
        let abs = std::fs::canonicalize(r).unwrap_or_else(|_| r.clone());
        o.push(("replay".into(), abs.display().to_string()));
    }
    let mut jvm_args = Vec::new();
    if !args.jvm_identity_hashes {
        jvm_args.extend(crate::driver::jvm::determinism_args(
            args.jvm.cpus.map(usize::from),
        ));
    }
    jvm_args.extend(args.jvm.jvm_arg.iter().cloned());
    Launch {
        java: java_binary(),
        jvm_args,
        agent_options: o,
        runtime: rt.clone(),
        classpath: cp.to_vec(),
        framework: Vec::new(),
        main: args.main.clone(),
        fail_on_output: args.oracles.fail_on_output.clone(),
        fail_on_file: args.oracles.fail_on_file.clone(),
        args: args.args.clone(),
        timeout_ms: args.limits.timeout_ms,
        cwd: None,
        log: None,
    }
}
