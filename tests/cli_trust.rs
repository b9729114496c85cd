//! Verdicts a user can trust, end to end through the built binary on a real JVM: the runtime
//! cache survives concurrent first use; `--json` prints one object for every exit code; a sweep
//! whose search errored exits 3; `run` replays before it reports; a JVM that dies mid-run is an
//! error with its log; classes that cannot be instrumented or loaded are said, not reported as
//! concurrency bugs; `replay` runs the current classes (a fix shows as "not reproduced"); a bug
//! that fails without any thread switch says so; threads started where rankcheck cannot see
//! (reflection) are said, never silently ignored; a failure of the non-preemptive strategy
//! replays.

mod cli_support;

use cli_support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// stdout as the one JSON object it must be.
fn one_json(ran: &Ran) -> Value {
    let lines: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "not one stdout line:\n{}", ran.both());
    serde_json::from_str(lines[0])
        .unwrap_or_else(|e| panic!("stdout is not a JSON object ({e}):\n{}", ran.both()))
}

fn report_dir(text: &str) -> String {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report line in:\n{text}"))
        .to_string()
}

const COUNTER_BUGGY: &str = "package counter;
public class Main {
    static int total;
    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(Main::addOne, \"adder-1\");
        Thread b = new Thread(Main::addOne, \"adder-2\");
        a.start(); b.start(); a.join(); b.join();
        if (total != 2) throw new AssertionError(\"lost update: total = \" + total);
    }
    static void addOne() { total++; }
}
";

const COUNTER_FIXED: &str = "package counter;
public class Main {
    static int total;
    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(Main::addOne, \"adder-1\");
        Thread b = new Thread(Main::addOne, \"adder-2\");
        a.start(); b.start(); a.join(); b.join();
        if (total != 2) throw new AssertionError(\"lost update: total = \" + total);
    }
    static synchronized void addOne() { total++; }
}
";

/// Fix 1: many `rankcheck rt` processes and the threads of one sweep unpack the runtime into
/// an empty cache at the same moment; every one of them succeeds.
#[test]
fn concurrent_first_use_of_an_empty_cache_succeeds() {
    let dir = scratch("trust-cache");
    for round in 0..3 {
        let cache = dir.join(format!("cache-{round}"));
        std::fs::create_dir_all(&cache).unwrap();
        let runs: Vec<Ran> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..6)
                .map(|_| {
                    s.spawn(|| rankcheck_env(&dir, &["rt"], &[("XDG_CACHE_HOME", &cache)], LIMIT))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for ran in &runs {
            assert_eq!(ran.code, 0, "{}", ran.both());
            let paths: Vec<&str> = ran.stdout.lines().collect();
            assert_eq!(paths.len(), 2, "{}", ran.both());
            for p in paths {
                assert!(Path::new(p).is_file(), "{p} missing");
            }
        }
    }
    // Threads of one process: the sweep prepares its programs in parallel, each asking for the
    // runtime and the instrumentation cache first.
    let suite = root().join("tests/programs");
    for round in 0..2 {
        let cache = dir.join(format!("sweep-cache-{round}"));
        std::fs::create_dir_all(&cache).unwrap();
        let ran = rankcheck_env(
            &dir,
            &[
                "sweep",
                suite.to_str().unwrap(),
                "--programs",
                "LostUpdate,LostUpdateFixed,CheckThenAct,CheckThenActFixed",
                "--strategies",
                "random",
                "--budget",
                "5",
                "-j",
                "4",
                "--out",
                &format!("sweep-{round}"),
            ],
            &[("XDG_CACHE_HOME", &cache)],
            LIMIT,
        );
        assert_eq!(ran.code, 0, "{}", ran.both());
        assert!(!ran.stderr.contains("cannot write"), "{}", ran.both());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fix 3: a sweep in which a search ended in an error gave no verdict: exit 3.
#[test]
fn a_sweep_with_a_failed_search_exits_3() {
    let dir = scratch("trust-sweep");
    let program = dir.join("suite/Broken");
    std::fs::create_dir_all(program.join("src/broken")).unwrap();
    std::fs::write(
        program.join("manifest.toml"),
        "name = \"Broken\"\nmain = \"broken.Main\"\nthreads = 1\n\
         description = \"Does not compile.\"\ncorrect = true\n",
    )
    .unwrap();
    std::fs::write(
        program.join("src/broken/Main.java"),
        "package broken; public class Main { this is not java }\n",
    )
    .unwrap();
    let ran = rankcheck(
        &dir,
        &[
            "sweep",
            dir.join("suite").to_str().unwrap(),
            "--strategies",
            "random",
            "--budget",
            "5",
            "-j",
            "1",
            "--out",
            "out",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 3, "{}", ran.both());
    assert!(ran.stderr.contains("search(es) failed"), "{}", ran.both());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fix 2: with `--json`, usage errors and bad input (exit 2) print one JSON object too.
#[test]
fn json_errors_are_one_json_object() {
    let dir = scratch("trust-json");
    let bad = rankcheck(
        &dir,
        &["test", "--json", "--cp", "/no/such/dir", "--main", "x.Main"],
        LIMIT,
    );
    assert_eq!(bad.code, 2, "{}", bad.both());
    let json = one_json(&bad);
    assert_eq!(json["exit"], 2);
    assert!(
        json["error"].as_str().unwrap().contains("/no/such/dir"),
        "{json}"
    );
    assert!(bad.stderr.contains("/no/such/dir"), "{}", bad.both());

    let usage = rankcheck(
        &dir,
        &[
            "test", "--json", "--budget", "many", "--cp", ".", "--main", "M",
        ],
        LIMIT,
    );
    assert_eq!(usage.code, 2, "{}", usage.both());
    let json = one_json(&usage);
    assert_eq!(json["exit"], 2);
    assert!(json["error"].as_str().unwrap().contains("many"), "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fix 4 (and 2 for exit 3): a failure that does not replay is never reported as a bug, by
/// `run` as by `test`; `test --json` then prints one object with the error and exit 3.
#[test]
fn a_failure_that_does_not_replay_is_no_bug_in_run_and_test() {
    let dir = scratch("trust-noreplay");
    // Fails the first time it runs on this machine only: a replay in a fresh JVM passes.
    let classes = javac(
        &dir,
        &[(
            "once/Main.java",
            "package once;
public class Main {
    public static void main(String[] args) throws Exception {
        if (new java.io.File(args[0]).createNewFile()) throw new IllegalStateException(\"first time\");
    }
}
",
        )],
    );
    let marker = dir.join("marker-run");
    let cp = classes.to_str().unwrap();
    let run = rankcheck(
        &dir,
        &[
            "run",
            "--cp",
            cp,
            "--main",
            "once.Main",
            "--out",
            "out-run",
            "--",
            marker.to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(run.code, 3, "{}", run.both());
    assert!(run.stdout.contains("NOT a bug"), "{}", run.both());
    assert!(run.stderr.contains("first time"), "{}", run.both());

    let marker = dir.join("marker-test");
    let test = rankcheck(
        &dir,
        &[
            "test",
            "--cp",
            cp,
            "--main",
            "once.Main",
            "--budget",
            "3",
            "-j",
            "1",
            "--json",
            "--out",
            "out-test",
            "--",
            marker.to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(test.code, 3, "{}", test.both());
    let json = one_json(&test);
    assert_eq!(json["exit"], 3);
    assert_eq!(json["bug"], false);
    assert!(
        json["error"].as_str().unwrap().contains("first time"),
        "{json}"
    );

    // A real bug: `run` replays it before it reports it.
    let counter = javac(
        &dir.join("counter"),
        &[("counter/Main.java", COUNTER_BUGGY)],
    );
    let bug = rankcheck(
        &dir,
        &[
            "run",
            "--cp",
            counter.to_str().unwrap(),
            "--main",
            "counter.Main",
            "--executions",
            "200",
            "--out",
            "out-bug",
        ],
        LIMIT,
    );
    assert_eq!(bug.code, 1, "{}", bug.both());
    assert!(
        bug.stdout
            .contains("replayed: the recorded schedule reproduces it"),
        "{}",
        bug.both()
    );
    let report = report_dir(&bug.stdout);
    assert!(Path::new(&report).join("run.json").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

const DIES: &str = "package dies;
public class Main {
    public static void main(String[] args) throws Exception {
        int n = Integer.getInteger(\"rankcheck.trust.n\", 0);
        System.setProperty(\"rankcheck.trust.n\", Integer.toString(n + 1));
        if (n < Integer.parseInt(args[1])) return;
        // Straight to the JVM's own stderr (the harness captures System.err): its log.
        java.io.FileOutputStream err = new java.io.FileOutputStream(java.io.FileDescriptor.err);
        err.write(\"dies: the program ends its JVM\\n\".getBytes());
        err.flush();
        if (args[0].equals(\"kill\")) {
            String pid = Long.toString(ProcessHandle.current().pid());
            new ProcessBuilder(\"kill\", \"-9\", pid).start().waitFor();
        } else {
            // A thread started by reflection: rankcheck does not control it.
            Thread exits = new Thread(() -> System.exit(0));
            Thread.class.getMethod(\"start\").invoke(exits);
        }
        long spin = 0;
        while (true) { spin++; }
    }
}
";

/// Fix 5: a JVM that ends with fewer results than asked and no stated reason is an error
/// (exit 3) that names its exit status and shows its log; its log is kept.
#[test]
fn a_jvm_that_dies_mid_run_is_an_error_with_its_log() {
    let dir = scratch("trust-dies");
    let classes = javac(&dir, &[("dies/Main.java", DIES)]);
    let cp = classes.to_str().unwrap();
    let test = |how: &str, at: &str, out: &str| {
        rankcheck(
            &dir,
            &[
                "test",
                "--cp",
                cp,
                "--main",
                "dies.Main",
                "--budget",
                "5",
                "-j",
                "1",
                "--json",
                "--out",
                out,
                "--",
                how,
                at,
            ],
            LIMIT,
        )
    };
    let exit = test("exit", "2", "out-exit");
    assert_eq!(exit.code, 3, "{}", exit.both());
    let json = one_json(&exit);
    assert_eq!(json["exit"], 3);
    let error = json["error"].as_str().unwrap();
    assert!(error.contains("exit status 0"), "{error}");
    assert!(error.contains("after 2 of 5 execution(s)"), "{error}");
    // The error names the JVM's log, which is kept in the report folder.
    let log = error
        .split("its log ")
        .nth(1)
        .and_then(|rest| rest.split([' ', ':']).next())
        .unwrap_or_else(|| panic!("no log named: {error}"));
    assert!(Path::new(log).is_file(), "{log} is gone: {error}");
    assert!(
        error.contains("| dies: the program ends its JVM"),
        "{error}"
    );
    assert!(
        Path::new(log).starts_with(dir.join("out-exit/logs").canonicalize().unwrap()),
        "{log}"
    );

    let killed = test("kill", "1", "out-kill");
    assert_eq!(killed.code, 3, "{}", killed.both());
    assert!(
        killed.stderr.contains("killed by signal 9") && killed.stderr.contains("1 of 5"),
        "{}",
        killed.both()
    );

    // At once: no execution reported at all.
    let first = test("exit", "0", "out-first");
    assert_eq!(first.code, 3, "{}", first.both());
    assert!(
        first.stderr.contains("without reporting an execution"),
        "{}",
        first.both()
    );

    // `run` checks the same way.
    let run = rankcheck(
        &dir,
        &[
            "run",
            "--cp",
            cp,
            "--main",
            "dies.Main",
            "--executions",
            "4",
            "--out",
            "out-run",
            "--",
            "exit",
            "1",
        ],
        LIMIT,
    );
    assert_eq!(run.code, 3, "{}", run.both());
    assert!(
        run.stderr.contains("after 1 of 4 execution(s)"),
        "{}",
        run.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fix 6: a class the rewriter cannot read is named on stderr and counted in the JSON; a class
/// compiled for a newer Java than the JDK is bad input before any search; a class missing at
/// run time is bad input, never a concurrency bug.
#[test]
fn classes_that_cannot_be_instrumented_or_loaded_are_said() {
    let dir = scratch("trust-classes");
    let sources: &[(&str, &str)] = &[
        (
            "app/Main.java",
            "package app;
public class Main {
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(() -> Helper.hello());
        t.start();
        t.join();
    }
}
",
        ),
        (
            "app/Helper.java",
            "package app;
public class Helper {
    static int calls;
    static void hello() { calls++; }
}
",
        ),
    ];
    let classes = javac(&dir, sources);
    let cp = classes.to_str().unwrap();
    let test = |out: &str| {
        rankcheck(
            &dir,
            &[
                "test", "--cp", cp, "--main", "app.Main", "--budget", "5", "-j", "1", "--json",
                "--out", out,
            ],
            LIMIT,
        )
    };
    // Something that is no class file, among the classes.
    std::fs::create_dir_all(classes.join("junk")).unwrap();
    std::fs::write(
        classes.join("junk/Bad.class"),
        b"\xca\xfe\xba\xbe not really",
    )
    .unwrap();
    let ran = test("out-junk");
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("warning: class junk/Bad.class is not instrumented"),
        "{}",
        ran.both()
    );
    assert_eq!(one_json(&ran)["uninstrumented_classes"], 1);
    std::fs::remove_file(classes.join("junk/Bad.class")).unwrap();

    // A class file of Java 21 (major version 65), which this JDK 17 cannot load.
    let helper = classes.join("app/Helper.class");
    let original = std::fs::read(&helper).unwrap();
    let mut newer = original.clone();
    newer[6..8].copy_from_slice(&65u16.to_be_bytes());
    std::fs::write(&helper, &newer).unwrap();
    let ran = test("out-version");
    assert_eq!(ran.code, 2, "{}", ran.both());
    let error = one_json(&ran)["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("app/Helper.class") && error.contains("Java 21"),
        "{error}"
    );
    assert!(
        !dir.join("out-version").exists(),
        "a search ran:\n{}",
        ran.both()
    );

    // The helper missing: NoClassDefFoundError in the thread that calls it.
    std::fs::remove_file(&helper).unwrap();
    let ran = test("out-missing");
    assert_eq!(ran.code, 2, "{}", ran.both());
    let error = one_json(&ran)["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("app.Helper") && error.contains("is it on --cp?"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fix 7: `replay` runs the current classes of the recorded class path: with the cache
/// cleared it still reproduces the bug (original code); after a fix it says how many classes
/// changed and does not reproduce (exit 0).
#[test]
fn replay_after_a_fix_runs_the_fixed_code() {
    let dir = scratch("trust-fix");
    let cache = dir.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let classes = javac(&dir, &[("counter/Main.java", COUNTER_BUGGY)]);
    let ran = rankcheck_env(
        &dir,
        &[
            "test",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            "counter.Main",
            "--budget",
            "300",
            "-j",
            "1",
            "--out",
            "reports",
            "--json",
        ],
        &env,
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let json = one_json(&ran);
    assert_eq!(json["exit"], 1);
    // A lost update needs a preemption.
    assert_eq!(json["schedule_independent"], false);
    let report = json["report"].as_str().unwrap().to_string();

    std::fs::remove_dir_all(&cache).unwrap();
    let replayed = rankcheck_env(&dir, &["replay", &report], &env, LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    assert!(
        !replayed.stdout.contains("changed since"),
        "{}",
        replayed.both()
    );

    javac(&dir, &[("counter/Main.java", COUNTER_FIXED)]);
    let fixed = rankcheck_env(&dir, &["replay", &report], &env, LIMIT);
    assert_eq!(fixed.code, 0, "{}", fixed.both());
    assert!(
        fixed
            .stdout
            .contains("1 class(es) changed since the report"),
        "{}",
        fixed.both()
    );
    assert!(fixed.stdout.contains("NOT reproduced"), "{}", fixed.both());

    // The program's classes gone: the instrumented copy the report ran (back in the cache since
    // the first replay) still replays, with a note.
    std::fs::remove_dir_all(&classes).unwrap();
    let gone = rankcheck_env(&dir, &["replay", &report], &env, LIMIT);
    assert_eq!(gone.code, 1, "{}", gone.both());
    assert!(gone.stderr.contains("is gone"), "{}", gone.both());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fix 8: a bug that fails without any thread switch is still a bug, and says so.
#[test]
fn a_schedule_independent_failure_says_so() {
    let dir = scratch("trust-always");
    let classes = javac(
        &dir,
        &[(
            "always/Main.java",
            "package always;
public class Main {
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(() -> { throw new IllegalStateException(\"always broken\"); });
        t.start();
        t.join();
    }
}
",
        )],
    );
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            "always.Main",
            "--budget",
            "20",
            "-j",
            "1",
            "--json",
            "--out",
            "out",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let json = one_json(&ran);
    assert_eq!(json["schedule_independent"], true, "{json}");
    assert_eq!(json["bugs"][0]["schedule_independent"], true, "{json}");
    assert!(
        ran.stderr
            .contains("fails in every schedule tried (it does not seem to depend on the schedule)"),
        "{}",
        ran.both()
    );
    let report = PathBuf::from(json["report"].as_str().unwrap());
    assert!(report.join("SCHEDULE-INDEPENDENT.txt").is_file());
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["schedule_independent"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lost signal fails in the schedule without preemptions (main signals before the consumer
/// awaits) but not in others: it is not said to be independent of the schedule, even when
/// `nonpreemptive` itself found it.
#[test]
fn a_failure_without_preemptions_is_not_schedule_independent_by_that_alone() {
    let dir = scratch("trust-missed-signal");
    let manifest = root().join("tests/programs/MissedSignal");
    let (ran, json) = test_manifest(
        &dir,
        &manifest,
        &["--strategy", "nonpreemptive", "--budget", "1"],
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(json["schedule_independent"], false, "{json}");
    assert!(
        !ran.stderr.contains("every schedule tried"),
        "{}",
        ran.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const REFLECTIVE_START: &str = "package reflective;
import java.lang.reflect.Method;
public class Main {
    static int count;
    public static void main(String[] args) throws Exception {
        Runnable add = () -> { for (int i = 0; i < 3; i++) { int c = count; count = c + 1; } };
        Thread a = new Thread(add);
        Thread b = new Thread(add);
        Method start = Thread.class.getMethod(\"start\");
        start.invoke(a);
        start.invoke(b);
        a.join();
        b.join();
        if (count != 6) throw new AssertionError(\"lost update: \" + count);
    }
}
";

/// `rankcheck test --json` on `source` (class `main`, file `path`): exit 3, and the JSON's error.
fn inconclusive_error(scratch_name: &str, path: &str, source: &str, main: &str) -> String {
    let dir = scratch(scratch_name);
    let classes = javac(&dir, &[(path, source)]);
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            main,
            "--budget",
            "200",
            "-j",
            "1",
            "--json",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 3, "{}", ran.both());
    let json = one_json(&ran);
    let _ = std::fs::remove_dir_all(&dir);
    json["error"].as_str().unwrap_or_default().to_string()
}

/// Threads started by reflection never pass through rankcheck: they run uncontrolled, and a
/// clean search over them would be a lie (their lost update is never seen). The search gives
/// no verdict (exit 3), names the threads and says what to do.
#[test]
fn threads_started_by_reflection_are_said_not_ignored() {
    let error = inconclusive_error(
        "trust-reflective",
        "reflective/Main.java",
        REFLECTIVE_START,
        "reflective.Main",
    );
    // Either thread may be the one caught first: both run uncontrolled, and which one makes
    // the first unscheduled call is up to the JVM.
    assert!(
        error.contains("ran uncontrolled") && error.contains("('Thread-"),
        "{error}"
    );
    assert!(error.contains("by reflection"), "{error}");
}

const REFLECTIVE_LATCH: &str = "package reflectivelatch;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
public class Main {
    public static void main(String[] args) throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        Method countDown = CountDownLatch.class.getMethod(\"countDown\");
        Thread helper = new Thread(() -> {
            try {
                countDown.invoke(ready);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.class.getMethod(\"start\").invoke(helper);
        ready.await();
        System.out.println(\"ready\");
    }
}
";

/// A deadlock is the model's state, and a thread the model does not see may change it in the
/// JVM: main waiting on a latch that a thread started by reflection counts down (by reflection
/// too, so no point of the program's notices the thread) is no verdict (exit 3, naming the
/// thread), not a deadlock (before: "BUG … deadlock", exit 1, with a note).
#[test]
fn a_wait_that_an_uncontrolled_thread_ends_is_no_deadlock() {
    let error = inconclusive_error(
        "trust-reflective-latch",
        "reflectivelatch/Main.java",
        REFLECTIVE_LATCH,
        "reflectivelatch.Main",
    );
    assert!(error.contains("ran uncontrolled"), "{error}");
}

/// A failure found by `--strategy nonpreemptive` replays: its quiet stretches counted steps a
/// replay asking at every access does not, so its recorded schedule diverged and a real bug
/// ended as exit 3 ("replaying its schedule did not"); now its one schedule is run again.
#[test]
fn a_failure_of_the_non_preemptive_strategy_replays() {
    let dir = scratch("trust-nonpreemptive");
    let manifest = root().join("tests/programs/IfInsteadOfWhile");
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--strategy",
            "nonpreemptive",
            "-j",
            "1",
            "--budget",
            "5",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let report = report_dir(&ran.stdout);
    let replay = rankcheck(&dir, &["replay", &report], LIMIT);
    assert_eq!(replay.code, 1, "{}", replay.both());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program no execution of which gets a verdict (a loop without scheduling points: the
/// watchdog ends every execution) stops the search after a few executions with the reason,
/// instead of spending three executions per JVM over the whole budget (here 10 JVMs) to end
/// with the same exit 3.
#[test]
fn a_search_whose_executions_all_give_no_verdict_stops_early() {
    let dir = scratch("trust-hopeless");
    let manifest = root().join("tests/programs/SpinNoSchedulingPoint");
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--budget",
            "2000",
            "-j",
            "1",
            "--timeout-ms",
            "1000",
            "--out",
            "out",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 3, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("3 of 3 execution(s) gave no verdict (the search stopped there: no execution gave a verdict)"),
        "{}",
        ran.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A count checked with `assert`, as tests and benchmark programs do.
const CHECKED_BY_ASSERT: &str = "package asserted;
public class Main {
    public static void main(String[] args) {
        int workers = 0;
        assert workers > 0 : \"no workers\";
        System.out.println(\"done\");
    }
}
";

/// Assertions are on (the JVM's `-ea`, first), and `--jvm-arg=-da` turns them off as it does
/// for `java` (before, the harness's class loaders forced them on whatever the JVM was told).
#[test]
fn assertions_are_on_unless_the_jvm_is_told_otherwise() {
    let dir = scratch("trust-asserts");
    let classes = javac(&dir, &[("asserted/Main.java", CHECKED_BY_ASSERT)]);
    let cp = classes.to_str().unwrap();
    let test = |extra: &[&str]| {
        let mut args = vec![
            "test",
            "--cp",
            cp,
            "--main",
            "asserted.Main",
            "--budget",
            "5",
            "-j",
            "1",
            "--no-minimize",
            "--out",
            "out",
        ];
        args.extend(extra);
        rankcheck(&dir, &args, LIMIT)
    };
    let on = test(&[]);
    assert_eq!(on.code, 1, "{}", on.both());
    assert!(on.both().contains("no workers"), "{}", on.both());
    for off in ["--jvm-arg=-da", "--jvm-arg=-da:asserted..."] {
        let ran = test(&[off]);
        assert_eq!(ran.code, 0, "{off}: {}", ran.both());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
