//! A sampled execution must run the same when replayed in a fresh JVM (after the warm-up every
//! replay has: the executions its JVM ran before it): the determinism check
//! (`test --check-determinism`, and one sample by default) says where one left its schedule; the JDK's process-wide counters
//! (default thread names) are put back before every execution; coverage does not depend on `-j`.

mod cli_support;

use cli_support::*;
use std::path::Path;
use std::process::Command;

/// Compiles one Java source (default package) into `dir/classes`.
fn compile(dir: &Path, name: &str, source: &str) -> String {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join(format!("{name}.java")), source).unwrap();
    let classes = dir.join("classes");
    let status = Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg(src.join(format!("{name}.java")))
        .status()
        .expect("javac runs");
    assert!(status.success(), "javac {name}");
    classes.display().to_string()
}

/// `rankcheck test` of `main` in `cp`: 30 executions, seed 3, one JVM (its last execution is
/// the sample), with `extra` flags.
fn search_of_30(dir: &Path, cp: &str, main: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "test", "--cp", cp, "--main", main, "--budget", "30", "--seed", "3", "-j", "1",
    ];
    args.extend(extra);
    rankcheck(dir, &args, LIMIT)
}

/// A program whose later executions in one JVM differ from the first: a system property set by
/// an earlier execution outlives it (rankcheck does not reset system properties). A replay that
/// runs the execution before the recorded one first sees the same.
const LEAK: &str = r#"
public class Leak {
    static int shared;
    public static void main(String[] args) throws Exception {
        boolean again = System.getProperty("leak.seen") != null;
        System.setProperty("leak.seen", "yes");
        Thread t = new Thread(() -> shared++);
        t.start();
        if (again) shared++;
        t.join();
    }
}
"#;

#[test]
fn an_execution_that_depends_on_earlier_ones_replays_after_its_warm_up() {
    let dir = scratch("determinism-leak");
    let cp = compile(&dir, "Leak", LEAK);
    let ran = search_of_30(&dir, &cp, "Leak", &["--check-determinism", "--json"]);
    // Before replays warmed up, execution 29 replayed alone left its schedule: exit 3.
    assert_eq!(ran.code, 0, "{}", ran.both());
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).expect("one JSON object");
    assert_eq!(
        json["nondeterminism"].as_array().map(Vec::len),
        Some(0),
        "{json}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program that reads what rankcheck does not pin: whether the JVM that left a file in its
/// working directory is this one (its process id). The search's JVM wrote it; a replay's JVM,
/// warmed up or not, is another process.
const OTHER_JVM: &str = r#"
import java.nio.file.*;

public class OtherJvm {
    static int shared;
    public static void main(String[] args) throws Exception {
        Path mark = Paths.get("first-jvm.pid");
        String me = Long.toString(ProcessHandle.current().pid());
        if (!Files.exists(mark)) Files.writeString(mark, me);
        boolean another = !Files.readString(mark).equals(me);
        Thread t = new Thread(() -> shared++);
        t.start();
        if (another) shared++;
        t.join();
    }
}
"#;

#[test]
fn an_execution_that_depends_on_what_rankcheck_does_not_pin_is_said_loudly() {
    let dir = scratch("determinism-other-jvm");
    let cp = compile(&dir, "OtherJvm", OTHER_JVM);
    // By default: a warning with the place where the replay left its schedule; the verdict
    // stands.
    let ran = search_of_30(&dir, &cp, "OtherJvm", &[]);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stderr
            .contains("nondeterminism rankcheck does not control: execution 29"),
        "{}",
        ran.both()
    );
    // Where it shows depends on the schedule: a step the replay does not offer, or an end
    // at another step.
    assert!(
        ran.stderr.contains("left its schedule at choice")
            || ran.stderr.contains("the recorded run at step"),
        "{}",
        ran.both()
    );
    // Asked for: no verdict (exit 3), and the JSON says why. (The search's JVM must be the
    // first to leave the file again.)
    std::fs::remove_file(dir.join("first-jvm.pid")).unwrap();
    let ran = search_of_30(&dir, &cp, "OtherJvm", &["--check-determinism", "--json"]);
    assert_eq!(ran.code, 3, "{}", ran.both());
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).expect("one JSON object");
    assert_eq!(json["nondeterminism"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["error_kind"], "inconclusive", "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two consumers `if (empty) wait()` around `notifyAll`, on unnamed threads: the failure's text
/// names `Thread-N`, which keeps counting across the executions of one JVM unless rankcheck puts
/// the counter back.
const BUFFER: &str = r#"
import java.util.*;

public class Buffer {
    private final LinkedList<Integer> items = new LinkedList<>();

    public synchronized void put(int x) {
        items.add(x);
        notifyAll();
    }

    public synchronized int take() throws InterruptedException {
        if (items.isEmpty()) wait();
        return items.removeFirst();
    }

    public static void main(String[] args) throws Exception {
        Buffer b = new Buffer();
        List<Thread> consumers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(() -> {
                try {
                    System.out.println(Thread.currentThread().getName() + " got " + b.take());
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            consumers.add(t);
            t.start();
        }
        Thread producer = new Thread(() -> { b.put(1); b.put(2); });
        producer.start();
        for (Thread t : consumers) t.join();
        producer.join();
    }
}
"#;

#[test]
fn a_bug_found_after_the_first_execution_on_unnamed_threads_replays() {
    let dir = scratch("determinism-names");
    let cp = compile(&dir, "Buffer", BUFFER);
    let ran = rankcheck(
        &dir,
        &[
            "test", "--cp", &cp, "--main", "Buffer", "--budget", "500", "--seed", "3", "--json",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).expect("one JSON object");
    let execution = json["bugs"][0]["execution"].as_u64().unwrap();
    assert!(execution > 0, "found in a later execution: {}", ran.both());
    let message = json["bugs"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("(Thread-0)") || message.contains("(Thread-1)"),
        "{message}"
    );
    let report = json["report"].as_str().unwrap();
    let replayed = rankcheck(&dir, &["replay", report], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn coverage_is_the_same_sentence_at_one_and_two_jvms() {
    let dir = scratch("determinism-coverage");
    let cp = compile(
        &dir,
        "Buffer",
        &BUFFER.replace("if (items.isEmpty())", "while (items.isEmpty())"),
    );
    for strategy in ["pct", "rankchecker", "random", "pos"] {
        let run = |jobs: &str| {
            let ran = rankcheck(
                &dir,
                &[
                    "test",
                    "--cp",
                    &cp,
                    "--main",
                    "Buffer",
                    "--budget",
                    "450",
                    "--seed",
                    "5",
                    "--strategy",
                    strategy,
                    "-j",
                    jobs,
                    "--json",
                ],
                LIMIT,
            );
            assert_eq!(ran.code, 0, "{strategy} -j {jobs}: {}", ran.both());
            let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).unwrap();
            json["coverage"].as_str().unwrap().to_string()
        };
        assert_eq!(run("1"), run("2"), "{strategy}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two threads each add 500,000 times to an unsynchronized counter: the failure comes at the
/// end of an execution of about two million scheduling choices.
const DEEP: &str = r#"
public class Deep {
    static int count;
    public static void main(String[] args) throws Exception {
        Runnable r = () -> { for (int i = 0; i < 500_000; i++) count++; };
        Thread a = new Thread(r), b = new Thread(r);
        a.start(); b.start(); a.join(); b.join();
        if (count != 1_000_000) throw new IllegalStateException("lost updates: " + count);
    }
}
"#;

#[test]
fn a_failure_two_million_choices_deep_replays() {
    let dir = scratch("determinism-deep");
    let cp = compile(&dir, "Deep", DEEP);
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--cp",
            &cp,
            "--main",
            "Deep",
            "--strategy",
            "random",
            "--budget",
            "5",
            "--seed",
            "1",
            "--json",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).expect("one JSON object");
    let report = json["report"].as_str().unwrap();
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(report).join("result.json")).unwrap(),
    )
    .unwrap();
    assert!(result["steps"].as_u64().unwrap() >= 2_000_000, "{result}");
    let replayed = rankcheck(&dir, &["replay", report], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_command_and_seed_give_the_same_json() {
    let dir = scratch("determinism-repeat");
    let cp = compile(&dir, "Buffer", BUFFER);
    let run = || {
        let ran = rankcheck(
            &dir,
            &[
                "test",
                "--cp",
                &cp,
                "--main",
                "Buffer",
                "--budget",
                "600",
                "--seed",
                "11",
                "--strategy",
                "pct",
                "--keep-going",
                // The search is what must repeat; minimization runs under a wall-clock cap.
                "--no-minimize",
                "--json",
                "--out",
                "out",
            ],
            LIMIT,
        );
        let mut json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).unwrap();
        // Timings differ; report folder names are unique per run.
        json.as_object_mut().unwrap().remove("seconds");
        let _ = std::fs::remove_dir_all(dir.join("out"));
        (ran.code, json.to_string())
    };
    let first = run();
    assert_eq!(first, run());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every bundled program without a known bug (tests/programs and contest-bench, the fixed
/// variants included): the last of 20 executions in one JVM, replayed in a fresh JVM (after
/// its warm-up), makes the same choices and ends at the same step. (Buggy programs stop at their bug; the
/// tests of `trust_programs` replay theirs after the first execution.)
#[test]
fn every_bundled_program_replays_its_last_execution_in_a_fresh_jvm() {
    let dir = scratch("determinism-suites");
    let mut failures = Vec::new();
    let mut checked = 0;
    for suite in ["tests/programs", "contest-bench"] {
        let mut programs: Vec<_> = std::fs::read_dir(root().join(suite))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                std::fs::read_to_string(p.join("manifest.toml"))
                    .is_ok_and(|m| m.lines().any(|l| l.replace(' ', "") == "correct=true"))
            })
            .collect();
        programs.sort();
        for program in programs {
            let out = dir.join("out");
            let ran = rankcheck(
                &dir,
                &[
                    "test",
                    "--manifest",
                    program.to_str().unwrap(),
                    "--budget",
                    "20",
                    "-j",
                    "1",
                    "--check-determinism",
                    "--json",
                    "--timeout-ms",
                    "5000",
                    "--out",
                    out.to_str().unwrap(),
                ],
                LIMIT,
            );
            let _ = std::fs::remove_dir_all(&out);
            let Ok(json) = serde_json::from_str::<serde_json::Value>(ran.stdout.trim()) else {
                failures.push(format!("{}: no JSON\n{}", program.display(), ran.both()));
                continue;
            };
            checked += 1;
            if json["nondeterminism"]
                .as_array()
                .is_some_and(|n| !n.is_empty())
            {
                failures.push(format!("{}: {}", program.display(), json["nondeterminism"]));
            }
        }
    }
    assert!(checked > 40, "only {checked} programs checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// icb prunes an execution that reaches an explored state: its schedule ends before the
/// program does. The determinism check replays the sampled (last) execution of the JVM; a
/// pruned one is replayed as pruned where its schedule ends, so a correct, deterministic
/// program gets no nondeterminism warning (before: "the schedule has ended, but the program
/// goes on", exit 3 with `--check-determinism`).
#[test]
fn a_pruned_execution_sampled_for_the_determinism_check_replays_as_pruned() {
    let dir = scratch("determinism-pruned");
    let manifest = root().join("tests/programs/LostUpdateFixed");
    for budget in ["10", "15"] {
        let ran = rankcheck(
            &dir,
            &[
                "test",
                "--manifest",
                manifest.to_str().unwrap(),
                "--strategy",
                "icb",
                "-c",
                "2",
                "--budget",
                budget,
                "-j",
                "1",
                "--check-determinism",
            ],
            LIMIT,
        );
        assert_eq!(ran.code, 0, "budget {budget}: {}", ran.both());
        assert!(!ran.both().contains("ran differently"), "{}", ran.both());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each execution's schedule (by index) of one JVM run straight from the agent's options
/// (`instrument=load`, every schedule recorded): `extra` says which executions it runs.
fn schedules_of_one_jvm(
    dir: &Path,
    cp: &str,
    name: &str,
    extra: &str,
) -> std::collections::BTreeMap<u64, String> {
    let rt = rankcheck(dir, &["rt"], LIMIT);
    assert_eq!(rt.code, 0, "{}", rt.both());
    let mut paths = rt
        .stdout
        .lines()
        .map(|l| l.split_whitespace().last().unwrap_or("").to_string());
    let (jar, agent) = (paths.next().unwrap(), paths.next().unwrap());
    let results = dir.join(format!("{name}.jsonl"));
    let out = Command::new("timeout")
        .args(["300", "java"])
        .arg(format!(
            "-agentpath:{agent}=instrument=load,strategy=portfolio,seed=4,record=all,out={},{extra}",
            results.display()
        ))
        .args(["-cp", &jar, "rankcheck.harness.Main", "--cp", cp, "--main", "Buffer"])
        .current_dir(dir)
        .output()
        .expect("java runs");
    let text = std::fs::read_to_string(&results).unwrap_or_default();
    let mut schedules = std::collections::BTreeMap::new();
    for line in text.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let schedule = r["schedule"].as_str().unwrap_or_default().to_string();
        schedules.insert(r["index"].as_u64().unwrap(), schedule);
    }
    assert!(
        !schedules.is_empty(),
        "{name}: no results\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    schedules
}

/// One JVM that runs several chunks gives each chunk a fresh strategy: execution i's schedule
/// is the same as in a JVM that runs only i's chunk, so `-j` never changes what runs.
#[test]
fn a_chunk_runs_the_same_schedules_after_other_chunks_as_in_a_jvm_of_its_own() {
    let dir = scratch("determinism-chunks");
    let cp = compile(
        &dir,
        "Buffer",
        &BUFFER.replace("if (items.isEmpty())", "while (items.isEmpty())"),
    );
    let all = schedules_of_one_jvm(
        &dir,
        &cp,
        "all",
        "first-execution=0,chunk=6,stride=6,end=18",
    );
    assert_eq!(
        all.keys().copied().collect::<Vec<_>>(),
        (0..18).collect::<Vec<_>>()
    );
    let second = schedules_of_one_jvm(
        &dir,
        &cp,
        "second",
        "first-execution=6,chunk=6,stride=12,end=18",
    );
    let third = schedules_of_one_jvm(&dir, &cp, "third", "first-execution=12,executions=6");
    assert_eq!(
        second.keys().copied().collect::<Vec<_>>(),
        (6..12).collect::<Vec<_>>()
    );
    for (index, schedule) in second.iter().chain(third.iter()) {
        assert_eq!(&all[index], schedule, "execution {index}");
    }
    // The chunks differ from each other (the test would show nothing otherwise).
    assert_ne!(all[&0], all[&1]);
    let _ = std::fs::remove_dir_all(&dir);
}
