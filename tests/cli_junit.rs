//! `rankcheck junit` and `@RankcheckTest` end to end, on JUnit tests written here
//! (`tests/junit/`) and compiled by the test against Debian's junit5 jars: a JUnit 5 class with
//! a racy and a correct test (an executor, a collection, `assertEquals`), a JUnit 4 class with
//! the same pair run through the vintage engine. The racy tests are found and their reports
//! replay; the correct ones pass — one of them only if every execution sees fresh static state.
//! The annotation gives the same verdicts under the JUnit console launcher with rankcheck's
//! agent, and fails with how to run it without. Bad input is exit 2.

mod cli_support;

use cli_support::junit::{compile, jar, junit_library, jupiter_classpath, jupiter_jars};
use cli_support::{rankcheck, scratch, Ran, LIMIT};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn json_of(ran: &Ran) -> Value {
    serde_json::from_str(ran.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", ran.both()))
}

/// The row of test `id` in a `--json` result.
fn row<'a>(json: &'a Value, id: &str) -> &'a Value {
    json["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["test"] == id)
        .unwrap_or_else(|| panic!("no row for {id}: {json}"))
}

const RACY: &str = "shop.CartTest#everyAddIsCounted";
const CORRECT: &str = "shop.CartTest#everyLockedAddIsCountedAndEveryOrderPlaced";

#[test]
fn junit_finds_the_racy_test_replays_it_and_passes_the_correct_one() {
    let dir = scratch("junit-jupiter");
    let cp = jupiter_classpath(&dir);
    let ran = rankcheck(
        &dir,
        &[
            "junit",
            "--cp",
            &cp,
            "--select",
            "shop.CartTest",
            "-j",
            "1",
            "--json",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let json = json_of(&ran);
    assert_eq!(json["exit"], 1);
    assert_eq!(json["found"], 1, "{json}");
    assert_eq!(json["clean"], 1, "{json}");
    let racy = row(&json, RACY);
    assert_eq!(racy["verdict"], "found", "{json}");
    assert!(
        racy["message"]
            .as_str()
            .unwrap()
            .contains("expected: <2> but was: <1>"),
        "{json}"
    );
    assert!(racy["executions"].as_u64().unwrap() <= 300, "{json}");
    let correct = row(&json, CORRECT);
    assert_eq!(correct["verdict"], "clean", "{json}");
    // The @RankcheckTest setting is the test's budget.
    assert_eq!(correct["executions"], 300, "{json}");
    // One line per test on stderr with --json.
    assert!(
        ran.stderr.contains(&format!("FOUND        {RACY}")),
        "{}",
        ran.both()
    );

    // The report replays exactly that test method in a fresh JVM.
    let report = racy["report"].as_str().unwrap();
    let replayed = rankcheck(&dir, &["replay", report], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    assert!(
        replayed.stdout.contains("reproduced") && replayed.stdout.contains("but was: <1>"),
        "{}",
        replayed.both()
    );
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(report).join("run.json")).unwrap())
            .unwrap();
    assert_eq!(run["main"], RACY);

    // One test selected: only it runs; the correct one alone is clean (exit 0).
    let alone = rankcheck(
        &dir,
        &["junit", "--cp", &cp, "--select", CORRECT, "-j", "2"],
        LIMIT,
    );
    assert_eq!(alone.code, 0, "{}", alone.both());
    assert!(
        alone.stdout.contains(&format!("clean        {CORRECT}"))
            && alone.stdout.contains("1 test(s)")
            && !alone.stdout.contains(RACY),
        "{}",
        alone.both()
    );
}

/// `rankcheck junit --select CLASS --json` (200 executions per test, seed 1, no minimization).
fn junit_class(scratch_name: &str, class: &str) -> (Ran, Value) {
    let dir = scratch(scratch_name);
    let cp = jupiter_classpath(&dir);
    let ran = rankcheck(
        &dir,
        &[
            "junit",
            "--cp",
            &cp,
            "--select",
            class,
            "--budget",
            "200",
            "--seed",
            "1",
            "-j",
            "1",
            "--no-minimize",
            "--json",
        ],
        LIMIT,
    );
    let json = json_of(&ran);
    (ran, json)
}

/// [`junit_class`]: exit 0 with `clean` tests, all of them.
fn class_is_clean(scratch_name: &str, class: &str, clean: u64) {
    let (ran, json) = junit_class(scratch_name, class);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert_eq!(json["clean"], clean, "{json}");
}

/// Correct tests with `@Timeout`s are clean: the engine's watcher thread, kept for the JVM,
/// timed out on the virtual clock, and `1 + 1` was reported as a bug that never replayed.
#[test]
fn tests_with_jupiter_timeouts_are_clean() {
    class_is_clean("junit-timeouts", "shop.DeliveryTimeoutTest", 2);
}

/// Test bodies JUnit runs on a thread of its own (`assertTimeoutPreemptively`, `@Timeout` with
/// `SEPARATE_THREAD`) run under control: the two racy ones are found, the correct one is clean
/// (before: the `assertTimeoutPreemptively` tests were inconclusive, their thread uncontrolled).
#[test]
fn tests_run_on_junits_timeout_thread_are_controlled() {
    let (ran, json) = junit_class("junit-timeout-thread", "shop.CourierTimeoutTest");
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(json["found"], 2, "{json}");
    assert_eq!(json["clean"], 1, "{json}");
    let correct = row(
        &json,
        "shop.CourierTimeoutTest#atomicStopsAddedWithinTheDeadlineAreCounted",
    );
    assert_eq!(correct["verdict"], "clean", "{json}");
}

/// A test launcher does not wait for a pool's idle workers: tests that never shut their pool
/// down pass under it, and are clean here (before: "deadlock", the idle worker blocked for
/// ever after the test method returned, as a program's `main` would be).
#[test]
fn tests_that_leave_a_pool_open_are_clean() {
    class_is_clean("junit-open-pool", "shop.QuoteServiceTest", 2);
}

#[test]
fn junit4_tests_run_through_the_vintage_engine() {
    let dir = scratch("junit-vintage");
    let classes = compile("vintage", &[jar("junit4.jar")], &dir);
    let cp = [
        classes.display().to_string(),
        jar("junit4.jar"),
        jar("hamcrest-core.jar"),
        jar("junit-vintage-engine.jar"),
        jar("junit-platform-engine.jar"),
        jar("junit-platform-launcher.jar"),
        jar("junit-platform-commons.jar"),
        jar("opentest4j.jar"),
        jar("apiguardian-api.jar"),
    ]
    .join(":");
    let ran = rankcheck(
        &dir,
        &["junit", "--cp", &cp, "-j", "1", "--budget", "200", "--json"],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let json = json_of(&ran);
    let racy = row(&json, "bank.AccountTest#depositsAddUp");
    assert_eq!(racy["verdict"], "found", "{json}");
    assert!(
        racy["message"]
            .as_str()
            .unwrap()
            .contains("expected:<20> but was:<10>"),
        "{json}"
    );
    let locked = row(&json, "bank.AccountTest#lockedDepositsAddUp");
    assert_eq!(locked["verdict"], "clean", "{json}");
    assert_eq!(locked["executions"], 200, "{json}");
    let replayed = rankcheck(&dir, &["replay", racy["report"].as_str().unwrap()], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    // Bodies JUnit 4 runs on a thread of its own (`@Test(timeout = …)`, the `Timeout` rule) run
    // under control (before: inconclusive, the "Time-limited test" thread uncontrolled).
    let timed = row(&json, "bank.TellerTimeoutTest#shiftDepositsAddUp");
    assert_eq!(timed["verdict"], "found", "{json}");
    let timed_locked = row(&json, "bank.TellerTimeoutTest#lockedShiftDepositsAddUp");
    assert_eq!(timed_locked["verdict"], "clean", "{json}");
}

/// Runs the JUnit console launcher on the shop tests; `agent` is the agent's option string, or
/// `None` for a JVM without rankcheck.
fn console(dir: &Path, classes: &Path, library: &str, agent: Option<&str>) -> Ran {
    let rt = rankcheck(dir, &["rt"], LIMIT);
    let mut paths = rt.stdout.lines();
    let (rt_jar, agent_so) = (paths.next().unwrap(), paths.next().unwrap());
    let mut cmd = Command::new("java");
    if let Some(options) = agent {
        cmd.args(["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2"])
            .arg(format!("-agentpath:{agent_so}={options}"));
    }
    let output = cmd
        .arg("-cp")
        .arg(format!(
            "{rt_jar}:{}",
            jar("junit-platform-console-standalone.jar")
        ))
        .args([
            "org.junit.platform.console.ConsoleLauncher",
            "--disable-banner",
            "--details=tree",
            "--class-path",
        ])
        .arg(format!("{}:{library}", classes.display()))
        .args(["--select-class", "shop.CartTest"])
        .current_dir(dir)
        .output()
        .unwrap();
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn the_annotation_gives_the_same_verdicts_under_the_console_launcher() {
    let dir = scratch("junit-console");
    let library = junit_library(&dir);
    let classes = compile("jupiter", &jupiter_jars(&library), &dir);
    let ran = console(
        &dir,
        &classes,
        &library,
        Some("plain=off,instrument=load,keep-going=on,executions=1000000000,strategy=pos"),
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let out = &ran.stdout;
    assert!(
        out.contains("1 tests successful") && out.contains("1 tests failed"),
        "{}",
        ran.both()
    );
    // The tree marks each test: the racy one failed with rankcheck's bug, the correct one passed.
    let line = |name: &str| {
        out.lines()
            .find(|l| l.contains(&format!("{name}()")))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"))
            .to_string()
    };
    assert!(line("everyAddIsCounted").contains('✘'), "{out}");
    assert!(
        line("everyLockedAddIsCountedAndEveryOrderPlaced").contains('✔'),
        "{out}"
    );
    assert!(
        out.contains("rankcheck: BUG in execution") && out.contains("but was: <1>"),
        "{out}"
    );
    assert!(
        out.contains("replay it: run this test alone with replay="),
        "{out}"
    );
}

#[test]
fn without_the_agent_an_annotated_test_fails_saying_how_to_run_it() {
    let dir = scratch("junit-no-agent");
    let library = junit_library(&dir);
    let classes = compile("jupiter", &jupiter_jars(&library), &dir);
    let ran = console(&dir, &classes, &library, None);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(ran.stdout.contains("2 tests failed"), "{}", ran.both());
    assert!(
        ran.stdout
            .contains("this JVM does not run rankcheck's agent")
            && ran
                .stdout
                .contains(&format!("rankcheck junit --cp CLASSPATH --select '{RACY}'")),
        "{}",
        ran.both()
    );
}

#[test]
fn bad_input_is_exit_2_with_one_line() {
    let dir = scratch("junit-bad");
    let library = junit_library(&dir);
    let jars = jupiter_jars(&library);
    let classes = compile("jupiter", &jars, &dir);
    let cp = format!("{}:{}", classes.display(), jars.join(":"));
    let expect_2 = |args: &[&str], needle: &str| {
        let ran = rankcheck(&dir, args, LIMIT);
        assert_eq!(ran.code, 2, "{args:?}\n{}", ran.both());
        let last = ran.stderr.lines().last().unwrap_or("");
        assert!(
            last.starts_with("rankcheck: error:") && last.contains(needle),
            "{args:?}: {}",
            ran.both()
        );
    };
    // No JUnit on the class path.
    expect_2(
        &["junit", "--cp", &classes.display().to_string()],
        "no JUnit on the class path",
    );
    // Selectors that match nothing.
    expect_2(
        &["junit", "--cp", &cp, "--select", "shop.NoSuchTest"],
        "shop.NoSuchTest",
    );
    expect_2(
        &[
            "junit",
            "--cp",
            &cp,
            "--select",
            "shop.CartTest#noSuchMethod",
        ],
        "has no method noSuchMethod",
    );
    expect_2(
        &["junit", "--cp", &cp, "--select", "shop.Cart"],
        "matches no test",
    );
    // A class the tests need is missing from the class path: its classes cannot load.
    std::fs::remove_file(classes.join("shop/Cart.class")).unwrap();
    expect_2(
        &["junit", "--cp", &cp, "--select", RACY, "-j", "1"],
        "could not be loaded",
    );
}

/// A plain test whose list is iterated while a thread it started adds: with the default
/// `--jdk-collections on` its first search cannot switch inside the iteration (the list is one
/// thread's until the add), says so, and is searched again with `all`, which finds the
/// `ConcurrentModificationException`.
#[test]
fn a_test_that_used_a_collection_alone_is_searched_again_with_all_points() {
    let dir = scratch("junit-escalate");
    let cp = jupiter_classpath(&dir);
    let id = "shop.ReviewsTest#averageWhileAReviewArrives";
    let ran = rankcheck(
        &dir,
        &[
            "junit", "--cp", &cp, "--select", id, "-j", "1", "--budget", "100", "--seed", "1",
            "--json",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("searching again with --jdk-collections all"),
        "{}",
        ran.both()
    );
    let json = json_of(&ran);
    let test = row(&json, id);
    assert_eq!(test["verdict"], "found", "{json}");
    assert!(
        test["message"]
            .as_str()
            .unwrap_or_default()
            .contains("ConcurrentModificationException"),
        "{json}"
    );
}
