//! The agent end to end, on a real JVM, through `rankcheck run`: the small programs of
//! `tests/java/agent/` are compiled with javac, instrumented by `rankcheck run` itself, and run
//! under the agent. Every rankcheck invocation has a wall-clock guard, so an agent that hangs
//! fails its test instead of hanging CI.

mod agent_support;

use agent_support::{java_tool, repo, Output};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// Longest any one rankcheck invocation may take.
const GUARD: Duration = Duration::from_secs(180);

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rankcheck-agent-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The test programs, compiled once per test binary.
fn classes() -> &'static Path {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let out = scratch().join("classes");
        let sources: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/java/agent"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "java"))
            .collect();
        let status = Command::new(java_tool("javac"))
            .args(["-g", "-d"])
            .arg(&out)
            .args(&sources)
            .status()
            .expect("javac");
        assert!(status.success(), "javac failed on tests/java/agent");
        out
    })
}

/// Runs a command to its end, killing it (and failing the test) after [`GUARD`].
fn guarded(cmd: Command) -> Output {
    agent_support::guarded(cmd, GUARD)
}

/// One `rankcheck run` and what it printed.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// `(index, outcome, kind)` of every execution line.
    executions: Vec<(u64, String, String)>,
    /// Report folders of the bugs, in order.
    reports: Vec<PathBuf>,
}

fn rankcheck_run(main: &str, options: &[&str], program_args: &[&str]) -> Run {
    let out = scratch().join(format!("out-{main}-{}", unique()));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rankcheck"));
    cmd.arg("run")
        .arg("--cp")
        .arg(classes())
        .args(["--main", main, "--out"])
        .arg(&out)
        .args(options)
        .arg("--")
        .args(program_args);
    parse_run(guarded(cmd))
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn parse_run(o: Output) -> Run {
    let mut executions = Vec::new();
    let mut reports = Vec::new();
    for line in o.stdout.lines() {
        if let Some(rest) = line.strip_prefix("execution ") {
            // execution 3: bug (deadlock) in 13 steps, ...
            let (index, rest) = rest.split_once(": ").unwrap();
            let (outcome, rest) = rest.split_once(" (").unwrap();
            let kind = rest.split(')').next().unwrap();
            executions.push((index.parse().unwrap(), outcome.into(), kind.into()));
        } else if let Some(dir) = line.trim().strip_prefix("report: ") {
            reports.push(PathBuf::from(dir));
        }
    }
    Run {
        code: o.code,
        stdout: o.stdout,
        stderr: o.stderr,
        executions,
        reports,
    }
}

impl Run {
    fn explain(&self) -> String {
        format!(
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    fn kinds(&self) -> Vec<&str> {
        self.executions.iter().map(|e| e.2.as_str()).collect()
    }

    fn result(&self, report: usize) -> serde_json::Value {
        let text = std::fs::read_to_string(self.reports[report].join("result.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

/// Replays a report's schedule in a fresh JVM, as `rankcheck replay` does.
fn replay(main: &str, report: &Path) -> Run {
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("run.json")).unwrap()).unwrap();
    let index = run["execution"].as_u64().unwrap().to_string();
    let seed = run["agent_options"]["seed"].as_str().unwrap().to_string();
    let schedule = report.join("schedule.txt");
    rankcheck_run(
        main,
        &[
            "--replay",
            schedule.to_str().unwrap(),
            "--first-execution",
            &index,
            "--seed",
            &seed,
        ],
        &[],
    )
}

fn assert_found_and_replays(strategy: &[&str]) {
    let mut options = vec!["--executions", "300"];
    options.extend_from_slice(strategy);
    let run = rankcheck_run("LostUpdate", &options, &[]);
    assert_eq!(run.code, Some(1), "{}", run.explain());
    assert_eq!(run.kinds().last(), Some(&"uncaught"), "{}", run.explain());
    let found = run.result(0);
    assert!(found["message"].as_str().unwrap().contains("lost update"));
    for _ in 0..2 {
        let again = replay("LostUpdate", &run.reports[0]);
        assert_eq!(again.code, Some(1), "{}", again.explain());
        assert_eq!(again.result(0)["message"], found["message"]);
        assert_eq!(again.result(0)["schedule"], found["schedule"]);
    }
}

#[test]
fn lost_update_is_found_by_random_and_replays_in_a_fresh_jvm() {
    assert_found_and_replays(&["--strategy", "random", "--seed", "3"]);
}

#[test]
fn lost_update_is_found_by_pct_and_replays_in_a_fresh_jvm() {
    assert_found_and_replays(&["--strategy", "pct", "-d", "2", "--seed", "11"]);
}

#[test]
fn the_same_seed_gives_the_same_schedules() {
    let a = rankcheck_run(
        "LostUpdate",
        &["--executions", "40", "--keep-going", "--seed", "9"],
        &[],
    );
    let b = rankcheck_run(
        "LostUpdate",
        &["--executions", "40", "--keep-going", "--seed", "9"],
        &[],
    );
    assert_eq!(a.executions.len(), 40, "{}", a.explain());
    assert_eq!(a.executions, b.executions);
    for i in 0..a.reports.len() {
        assert_eq!(a.result(i)["schedule"], b.result(i)["schedule"]);
    }
}

#[test]
fn a_synchronized_counter_passes_every_execution() {
    let run = rankcheck_run("SyncCounter", &["--executions", "100"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.executions.len(), 100);
    assert!(run.kinds().iter().all(|k| *k == "finished"));
}

#[test]
fn wait_notify_ping_pong_never_runs_two_threads_at_once() {
    // PingPong checks, outside its lock, that no other thread runs application code meanwhile
    // (plain `java` trips that check); under rankcheck it must never fire.
    let run = rankcheck_run("PingPong", &["--executions", "40", "--spurious"], &["25"]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.executions.len(), 40);
}

/// The output of `main` under plain `java` (which must exit 0).
fn plain_java_output(main: &str) -> String {
    let plain = guarded({
        let mut c = Command::new(java_tool("java"));
        c.arg("-cp").arg(classes()).arg(main);
        c
    });
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    plain.stdout
}

/// What the program printed in a `--show-output` run (its first execution's lines only).
fn program_output(run: &Run) -> String {
    run.stdout
        .split("--- stdout ---\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| {
            !l.starts_with("rankcheck: ")
                && !l.starts_with("  --- ")
                && !l.starts_with("execution ")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn join_sleep_interrupt_and_timed_waits_behave_as_in_plain_java() {
    let plain = plain_java_output("Semantics");
    for seed in ["1", "2", "3"] {
        let run = rankcheck_run("Semantics", &["--seed", seed, "--show-output"], &[]);
        assert_eq!(run.code, Some(0), "{}", run.explain());
        assert_eq!(program_output(&run), plain, "seed {seed}");
    }
}

#[test]
fn monitors_and_interrupt_queries_passed_in_quiet_stretches_keep_the_model_right() {
    // Under `nonpreemptive` the stretch lets monitor enters/exits and interrupt queries pass in
    // Java; the wait inside monitors entered that way, the self-interrupt and the exception
    // leaving a synchronized block must still behave exactly as in plain Java, and as under
    // strategies that send everything through the agent.
    let plain = plain_java_output("QuietMonitors");
    for strategy in ["nonpreemptive", "random", "pos"] {
        let run = rankcheck_run(
            "QuietMonitors",
            &["--strategy", strategy, "--executions", "5", "--show-output"],
            &[],
        );
        assert_eq!(run.code, Some(0), "{strategy}: {}", run.explain());
        assert!(
            run.kinds().iter().all(|k| *k == "finished"),
            "{}",
            run.explain()
        );
        assert_eq!(program_output(&run), plain, "{strategy}");
    }
}

#[test]
fn a_wait_inside_monitors_entered_in_a_quiet_stretch_deadlocks_in_the_model_and_replays() {
    // The model must own OUTER (entered in Java) when the waiter waits, so that the notifier
    // blocks in the model: a deadlock report, not a thread stuck in the JVM (the watchdog).
    let run = rankcheck_run(
        "QuietDeadlock",
        &["--strategy", "nonpreemptive", "--executions", "1"],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.explain());
    assert_eq!(run.kinds(), ["deadlock"], "{}", run.explain());
    let again = replay("QuietDeadlock", &run.reports[0]);
    assert_eq!(again.code, Some(1), "{}", again.explain());
    assert_eq!(again.kinds(), ["deadlock"], "{}", again.explain());
    assert_eq!(again.result(0)["schedule"], run.result(0)["schedule"]);
}

#[test]
fn system_exit_from_a_worker_ends_the_execution_not_the_jvm() {
    let run = rankcheck_run(
        "ExitFromWorker",
        &["--executions", "5", "--keep-going"],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.explain());
    assert_eq!(run.kinds(), vec!["exit"; 5], "{}", run.explain());
    assert_eq!(run.result(0)["exit_status"], 3);
    assert!(run.result(0)["stdout"]
        .as_str()
        .unwrap()
        .contains("worker exits"));
    let expected = rankcheck_run(
        "ExitFromWorker",
        &["--executions", "3", "--expect-exit", "3"],
        &[],
    );
    assert_eq!(expected.code, Some(0), "{}", expected.explain());
    assert_eq!(expected.executions.len(), 3);
}

#[test]
fn an_endless_spin_loop_is_a_livelock_and_the_step_bound_alone_is_no_bug() {
    let run = rankcheck_run(
        "SpinForever",
        &[
            "--livelock-window",
            "2000",
            "--executions",
            "3",
            "--keep-going",
        ],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.explain());
    assert_eq!(run.kinds(), vec!["livelock"; 3]);
    let message = run.result(0)["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("SpinForever.lambda$main$0 line "),
        "{message}"
    );
    // Cut by the step bound before the window closes: too long, no verdict.
    let cut = rankcheck_run(
        "SpinForever",
        &["--max-steps", "3000", "--executions", "1"],
        &[],
    );
    assert_eq!(cut.code, Some(3), "{}", cut.explain());
    assert_eq!(cut.kinds(), vec!["too-long"]);
    assert_eq!(cut.result(0)["bound"], "steps");
    assert_eq!(cut.result(0)["outcome"], "inconclusive");
}

#[test]
fn an_endless_spin_loop_inside_one_quiet_stretch_still_ends() {
    // Under `nonpreemptive` the spinner's accesses pass in Java: one grant covers all the
    // steps the bound leaves, so the step bound ends it exactly where the agent would...
    let bounded = rankcheck_run(
        "SpinForever",
        &[
            "--strategy",
            "nonpreemptive",
            "--max-steps",
            "3000",
            "--executions",
            "1",
        ],
        &[],
    );
    assert_eq!(bounded.kinds(), vec!["too-long"], "{}", bounded.explain());
    assert_eq!(bounded.result(0)["steps"], 3000, "{}", bounded.explain());
    // ...and with no step bound worth the name the wall-clock bound stops the thread, which
    // never comes back to the agent by itself.
    let timed = rankcheck_run(
        "SpinForever",
        &[
            "--strategy",
            "nonpreemptive",
            "--max-steps",
            "1000000000000000",
            "--timeout-ms",
            "800",
            "--executions",
            "1",
        ],
        &[],
    );
    assert_eq!(timed.kinds(), vec!["timeout"], "{}", timed.explain());
    assert!(
        !timed.stdout.contains("could not be stopped"),
        "{}",
        timed.explain()
    );
}

#[test]
fn a_thread_blocked_in_a_queue_take_ends_with_a_clear_report() {
    // With java.util.concurrent rewritten at load time the take is a modelled park (a model
    // deadlock); without, the watchdog sees the thread parked where rankcheck cannot see.
    let run = rankcheck_run(
        "QueueTake",
        &["--block-ms", "300", "--executions", "2", "--keep-going"],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.explain());
    assert_eq!(run.executions.len(), 2, "{}", run.explain());
    for kind in run.kinds() {
        assert!(kind == "deadlock" || kind == "blocked", "{}", run.explain());
    }
    let stacks = std::fs::read_to_string(run.reports[0].join("stacks.txt")).unwrap();
    assert!(
        stacks.contains("QueueTake.lambda$main$0(QueueTake.java:"),
        "{stacks}"
    );
}

#[test]
fn a_thread_blocked_in_unmodelled_io_is_caught_by_the_watchdog() {
    let run = rankcheck_run(
        "PipeRead",
        &["--block-ms", "300", "--executions", "2", "--keep-going"],
        &[],
    );
    // A limit of rankcheck, not a finding: exit 3 ("could not control"), never 1.
    assert_eq!(run.code, Some(3), "{}", run.explain());
    assert_eq!(run.kinds(), vec!["blocked"; 2], "{}", run.explain());
    let r = run.result(0);
    assert_eq!(r["bound"], "watchdog");
    assert!(
        r["message"].as_str().unwrap().contains("t1 (reader)"),
        "{r}"
    );
    let stacks = std::fs::read_to_string(run.reports[0].join("stacks.txt")).unwrap();
    assert!(
        stacks.contains("PipeRead.lambda$main$0(PipeRead.java:"),
        "{stacks}"
    );
    // Replaying its report cannot be controlled either: exit 3, never "reproduced" (1).
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rankcheck"));
    cmd.arg("replay").arg(&run.reports[0]);
    let again = guarded(cmd);
    assert_eq!(again.code, Some(3), "{}\n{}", again.stdout, again.stderr);
    assert!(
        again.stderr.contains("could not be controlled (blocked)"),
        "{}",
        again.stderr
    );
}

#[test]
fn a_thousand_threads_run_to_the_end() {
    let run = rankcheck_run("ThousandThreads", &["--executions", "2"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.kinds(), vec!["finished"; 2]);
}

#[test]
fn daemon_threads_left_running_end_the_execution() {
    let run = rankcheck_run("DaemonLeft", &["--executions", "30"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.executions.len(), 30);
    assert!(run
        .stdout
        .contains("daemon thread(s) still running were stopped: ticker"));
    assert!(
        !run.stdout.contains("could not be stopped"),
        "{}",
        run.explain()
    );
}

#[test]
fn a_throwing_worker_is_reported_and_one_throwing_for_ever_hits_the_bound() {
    let run = rankcheck_run("ThrowsInLoop", &["--executions", "5", "--keep-going"], &[]);
    assert_eq!(run.kinds(), vec!["uncaught"; 5], "{}", run.explain());
    let r = run.result(0);
    assert!(r["message"]
        .as_str()
        .unwrap()
        .contains("worker gives up after 3"));
    assert!(r["trace"]
        .as_str()
        .unwrap()
        .contains("ThrowsInLoop.lambda$main$0"));
    let forever = rankcheck_run("ThrowsInLoop", &["--max-steps", "2000"], &["forever"]);
    assert_eq!(forever.kinds(), vec!["too-long"], "{}", forever.explain());
}

#[test]
fn a_start_that_never_starts_the_thread_does_not_hang() {
    let run = rankcheck_run("NeverStarts", &["--executions", "10", "--show-output"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.stdout.matches("joined").count(), 10);
    assert!(!run.stdout.contains("run?!"));
}

#[test]
fn a_deadlock_is_reported_with_every_threads_stack() {
    let run = rankcheck_run("Deadlock", &["--executions", "200", "--seed", "4"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.explain());
    assert_eq!(run.kinds().last(), Some(&"deadlock"));
    let stacks = std::fs::read_to_string(run.reports[0].join("stacks.txt")).unwrap();
    for frame in [
        "at Deadlock.main(Deadlock.java:",
        "at Deadlock.lambda$main$0(Deadlock.java:",
        "at Deadlock.lambda$main$1(Deadlock.java:",
    ] {
        assert!(stacks.contains(frame), "{frame} missing from\n{stacks}");
    }
}

#[test]
fn fork_mode_runs_one_jvm_per_execution() {
    let run = rankcheck_run("SyncCounter", &["--executions", "3", "--fork"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    let indices: Vec<u64> = run.executions.iter().map(|e| e.0).collect();
    assert_eq!(indices, vec![0, 1, 2]);
}

#[test]
fn an_unknown_agent_option_stops_the_jvm_with_a_clear_error() {
    let agent = guarded({
        let mut c = Command::new(env!("CARGO_BIN_EXE_rankcheck"));
        c.args(["rt", "--agent"]);
        c
    });
    let agent = agent.stdout.trim().to_string();
    let o = guarded({
        let mut c = Command::new(java_tool("java"));
        c.arg(format!("-agentpath:{agent}=seed=1,colour=red"))
            .arg("-version");
        c
    });
    assert_ne!(o.code, Some(0));
    assert!(
        o.stderr
            .contains("rankcheck agent: error: unknown option \"colour\""),
        "{}",
        o.stderr
    );
}

#[test]
fn code_run_by_a_static_initializer_is_never_preempted() {
    // Preempting Holder.<clinit>'s callee would leave the other thread blocked in the JVM's
    // class-initialization lock; rankcheck runs static initializers without scheduling points.
    let run = rankcheck_run(
        "ClinitCall",
        &["--executions", "30", "--block-ms", "500", "--keep-going"],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.kinds(), vec!["finished"; 30]);
}

/// Plain objects a thread makes hash apart and by (seed, execution), not by what the JVM did
/// before: two JVMs running the same executions print the same HashSet orders, and the
/// orders are not one order (a constant hash would make every set a list in insertion order).
#[test]
fn identity_hashes_are_the_same_in_every_jvm() {
    let first = printed_in_a_fresh_jvm("IdentityOrder", "3", 6, "order ");
    assert_eq!(
        first,
        printed_in_a_fresh_jvm("IdentityOrder", "3", 6, "order ")
    );
    assert!(first.iter().any(|o| *o != first[0]), "{first:?}");
    assert!(!first.contains(&"order 01234567".to_string()), "{first:?}");
}

/// The lines starting with `prefix` that `main` prints in `executions` executions of one JVM
/// (seed `seed`), one per execution.
fn printed_in_a_fresh_jvm(main: &str, seed: &str, executions: usize, prefix: &str) -> Vec<String> {
    let count = executions.to_string();
    let run = rankcheck_run(
        main,
        &["--executions", &count, "--show-output", "--seed", seed],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.explain());
    let lines: Vec<String> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), executions, "{}", run.explain());
    lines
}

/// The methods and constructors reflection hands the program come in one order in every JVM
/// (sorted by name, then signature), called directly or through a method reference: HotSpot's
/// own order follows where the names lie in memory and differs between JVM runs, and a loop
/// that stops at the first match then takes other steps in a replay's fresh JVM.
#[test]
fn reflection_gives_one_order_in_every_jvm() {
    let run = rankcheck_run(
        "ReflectionOrder",
        &["--executions", "2", "--show-output"],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.explain());
    for line in [
        "first handler onPause",
        // The pinned identity hash the rewriter gives classes without a `hashCode` is not
        // the program's: it shows in neither array.
        "declared methods audit,audit,midway,onPause,onStart,onStop,zeta sorted",
        "public methods sorted",
        "hashCode declared by java.lang.Object",
        "constructors sorted",
        "through a reference sorted",
        "public constructors sorted",
    ] {
        assert_eq!(
            run.stdout.lines().filter(|l| *l == line).count(),
            2,
            "{line:?}\n{}",
            run.explain()
        );
    }
}

/// `UUID.randomUUID()` gives the same ids in every JVM for the same seed and execution (its
/// source is seeded before each execution), and other ids in another execution: a map keyed
/// by them is walked in one order in the search and in a fresh replay JVM.
#[test]
fn random_uuids_are_the_same_in_every_jvm() {
    let first = printed_in_a_fresh_jvm("SessionIds", "5", 3, "sessions ");
    assert_eq!(
        first,
        printed_in_a_fresh_jvm("SessionIds", "5", 3, "sessions ")
    );
    assert_ne!(first[0], first[1], "{first:?}");
}

/// An object has one identity hash however it is asked (the program's call, the JDK's, and an
/// inherited `hashCode`), interpreted or compiled, and the execution's own objects get distinct
/// pinned ones (before `Class` objects were left out, `Main.class.hashCode()` answered 1 from
/// the object's header while the other two paths gave the pinned hash).
#[test]
fn one_object_has_one_identity_hash_however_asked() {
    let run = rankcheck_run(
        "IdentityAgreement",
        &["--executions", "3", "--show-output"],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(
        run.stdout.matches("identity hashes agree").count(),
        3,
        "{}",
        run.explain()
    );
}

#[test]
fn park_and_unpark_behave_as_in_plain_java() {
    let run = rankcheck_run("ParkUnpark", &["--executions", "20", "--show-output"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.stdout.matches("worker saw ready").count(), 20);
    assert_eq!(run.stdout.matches("timed park returned").count(), 20);
}

#[test]
fn output_and_file_oracles_are_applied_in_the_jvm() {
    let by_output = rankcheck_run(
        "RacyPrint",
        &["--executions", "300", "--fail-on-output", "count=1$"],
        &[],
    );
    assert_eq!(by_output.code, Some(1), "{}", by_output.explain());
    assert_eq!(by_output.kinds().last(), Some(&"output"));
    let file = scratch().join(format!("racy-{}.txt", unique()));
    let spec = format!("{}=final count 1", file.display());
    let by_file = rankcheck_run(
        "RacyPrint",
        &["--executions", "300", "--fail-on-file", &spec],
        &[file.to_str().unwrap()],
    );
    assert_eq!(by_file.code, Some(1), "{}", by_file.explain());
    assert_eq!(by_file.kinds().last(), Some(&"file"));
    // A regex nothing matches: every execution passes.
    let clean = rankcheck_run(
        "RacyPrint",
        &["--executions", "30", "--fail-on-output", "count=3"],
        &[],
    );
    assert_eq!(clean.code, Some(0), "{}", clean.explain());
}

#[test]
fn a_loop_without_scheduling_points_ends_at_the_wall_clock_bound() {
    let run = rankcheck_run(
        "HotLoop",
        &["--timeout-ms", "800", "--executions", "2", "--keep-going"],
        &[],
    );
    // Inconclusive, not a bug: rankcheck cannot control a loop without scheduling points.
    assert_eq!(run.code, Some(3), "{}", run.explain());
    assert!(
        run.stdout.contains("inconclusive (timeout)"),
        "{}",
        run.explain()
    );
    assert_eq!(run.kinds(), vec!["timeout"; 2], "{}", run.explain());
    assert_eq!(run.result(0)["bound"], "wall-clock");
    assert!(
        !run.stdout.contains("could not be stopped"),
        "{}",
        run.explain()
    );
}

#[test]
fn a_schedule_that_does_not_fit_the_program_is_reported_as_diverged() {
    let bug = rankcheck_run("LostUpdate", &["--executions", "300"], &[]);
    assert_eq!(bug.code, Some(1), "{}", bug.explain());
    let schedule = bug.reports[0].join("schedule.txt");
    let other = rankcheck_run("Semantics", &["--replay", schedule.to_str().unwrap()], &[]);
    assert_eq!(other.code, Some(0), "{}", other.explain());
    assert_eq!(other.kinds(), vec!["diverged"], "{}", other.explain());
}

#[test]
fn rankcheck_test_says_when_executions_could_not_be_controlled_and_never_reports_a_bug() {
    // Every execution of HotLoop ends at the wall-clock bound: inconclusive, so the search goes
    // on (up to the agent's cap of 3), and the CLI ends with exit 3 and one line saying so.
    let out = scratch().join(format!("out-test-hotloop-{}", unique()));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rankcheck"));
    cmd.arg("test")
        .arg("--cp")
        .arg(classes())
        .args([
            "--main",
            "HotLoop",
            "--timeout-ms",
            "600",
            "--budget",
            "10",
            "-j",
            "1",
        ])
        .arg("--out")
        .arg(&out);
    let o = guarded(cmd);
    let explain = format!("exit {:?}\n{}\n{}", o.code, o.stdout, o.stderr);
    assert_eq!(o.code, Some(3), "{explain}");
    assert!(
        o.stderr
            .contains("inconclusive: 3 of 3 execution(s) gave no verdict"),
        "{explain}"
    );
    assert!(o.stderr.contains("report in "), "{explain}");
    assert!(!o.stdout.contains("BUG"), "{explain}");
    assert!(
        o.stdout.contains("coverage (not valid for the 3"),
        "{explain}"
    );
}

/// `rankcheck test` on a program of tests/java/agent: (exit code, executions counted).
fn rankcheck_test_executions(main: &str, options: &[&str]) -> (Option<i32>, u64, String) {
    let out = scratch().join(format!("out-test-{main}-{}", unique()));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rankcheck"));
    cmd.arg("test")
        .arg("--cp")
        .arg(classes())
        .args(["--main", main])
        .args(options)
        .arg("--out")
        .arg(&out);
    let o = guarded(cmd);
    let explain = format!("exit {:?}\n{}\n{}", o.code, o.stdout, o.stderr);
    let count = o
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("rankcheck: ")?.split_once(" execution(s)"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no execution count: {explain}"));
    (o.code, count, explain)
}

#[test]
fn icb_in_fork_mode_explores_as_many_schedules_as_in_one_jvm() {
    // The agent saves ICB's search state after every execution (`state=`) and the next JVM
    // resumes from it, so one JVM per execution explores the same schedules as one JVM.
    let common = ["--strategy", "icb", "-c", "1", "--budget", "200", "-j", "2"];
    let (code, in_jvm, explain) = rankcheck_test_executions("TwoWriters", &common);
    assert_eq!(code, Some(0), "{explain}");
    assert!(in_jvm > 3 && in_jvm < 200, "{explain}");
    let fork: Vec<&str> = common.iter().copied().chain(["--fork"]).collect();
    let (code, forked, explain) = rankcheck_test_executions("TwoWriters", &fork);
    assert_eq!(code, Some(0), "{explain}");
    assert!(!explain.contains("--fork ignored"), "{explain}");
    assert_eq!(forked, in_jvm, "{explain}");
    assert!(
        explain.contains("ICB explored every happens-before-distinct schedule"),
        "{explain}"
    );
    // rankcheck run --fork carries the state the same way.
    let run = rankcheck_run(
        "TwoWriters",
        &[
            "--strategy",
            "icb",
            "-c",
            "1",
            "--executions",
            "200",
            "--fork",
        ],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.explain());
    assert_eq!(run.executions.len() as u64, in_jvm, "{}", run.explain());
}
