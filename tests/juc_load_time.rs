//! Load-time instrumentation (`rankcheck run --load-time`, agent option `instrument=load`): the
//! program runs from its plain classes and gives, execution by execution, the same outcome,
//! kind, message and step count as the offline-instrumented copy (same passes, same site ids,
//! same scheduling points); classes instrumented offline are not rewritten twice.

mod cli_support;

use cli_support::{compile_test_program, rankcheck, root, scratch, LIMIT};
use std::path::Path;

/// The per-execution lines of `rankcheck run` without their timings.
fn executions(dir: &Path, cp: &Path, main: &str, load_time: bool, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "run",
        "--cp",
        cp.to_str().unwrap(),
        "--main",
        main,
        "--out",
        "out",
        "--keep-going",
        "--seed",
        "3",
        // The subject is instrumentation, not the strategy: pos finds fewer bugs per execution
        // than surw, so fewer of them are replayed and minimized (surw: 556 s instead of 161).
        "--strategy",
        "pos",
    ];
    if load_time {
        args.push("--load-time");
    }
    args.extend(extra);
    let ran = rankcheck(dir, &args, LIMIT);
    assert!(
        ran.code == 0 || ran.code == 1,
        "{main} (load time {load_time}): {}",
        ran.both()
    );
    let lines: Vec<String> = ran
        .stdout
        .lines()
        .filter(|l| l.starts_with("execution "))
        .map(|l| {
            // "execution 3: pass (finished) in 17 steps, 2 ms: …" without the milliseconds.
            let (head, rest) = l.split_once(" steps, ").unwrap_or((l, ""));
            let rest = rest.split_once(": ").map_or("", |(_, m)| m);
            format!("{head} steps: {rest}")
        })
        .collect();
    assert!(!lines.is_empty(), "{}", ran.both());
    lines
}

fn same_as_offline(dir: &Path, cp: &Path, main: &str, extra: &[&str]) {
    let offline = executions(dir, cp, main, false, extra);
    let load = executions(dir, cp, main, true, extra);
    assert_eq!(offline, load, "{main}: offline vs load-time");
}

#[test]
fn test_programs_behave_as_under_offline_instrumentation() {
    let dir = scratch("load-time-programs");
    for name in [
        "LostUpdate",
        "IfInsteadOfWhile",
        "LockOrderDeadlock",
        "UseBeforeInit",
        "SpuriousWakeupFixed",
        "MissedSignal",
        "SemaphorePermits",
        "ExecutorRace",
        "ThrowInLoop",
        "DaemonLeftRunning",
    ] {
        let classes = compile_test_program(name, &dir.join(name));
        let manifest = std::fs::read_to_string(
            root()
                .join("tests/programs")
                .join(name)
                .join("manifest.toml"),
        )
        .unwrap();
        let main = manifest
            .lines()
            .find_map(|l| l.strip_prefix("main = \""))
            .and_then(|l| l.strip_suffix('"'))
            .unwrap();
        same_as_offline(&dir, &classes, main, &["--executions", "15"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rewriter_corpus_programs_behave_as_under_offline_instrumentation() {
    let dir = scratch("load-time-corpus");
    let corpus = root().join("tests/corpus/rewrite");
    for main in ["rw.Basics", "rw.Threads", "rw.Big"] {
        same_as_offline(
            &dir,
            &corpus,
            main,
            &["--executions", "2", "--max-steps", "10000000"],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn offline_instrumented_classes_are_not_rewritten_twice() {
    let dir = scratch("load-time-twice");
    let out = dir.join("instrumented");
    let ran = rankcheck(
        &dir,
        &[
            "instrument",
            root().join("tests/corpus/rewrite").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    // Offline-instrumented classes under --load-time: a second rewrite would add a second set
    // of scheduling points and change the step counts.
    let plain = executions(&dir, &out, "rw.Threads", false, &["--executions", "2"]);
    let load = executions(&dir, &out, "rw.Threads", true, &["--executions", "2"]);
    assert_eq!(plain, load);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plain_java_with_the_agent_instruments_an_unmodified_program_as_it_loads() {
    // `java -agentpath:…=instrument=load -cp classes:rankcheck-rt.jar Main`: no instrument step
    // and no harness; the lost signal of MissedSignal (a Condition) is a model deadlock.
    let dir = scratch("load-time-plain");
    let classes = compile_test_program("MissedSignal", &dir);
    let rt = rankcheck(&dir, &["rt"], LIMIT);
    assert_eq!(rt.code, 0, "{}", rt.both());
    let mut paths = rt
        .stdout
        .lines()
        .map(|l| l.split_whitespace().last().unwrap_or(""));
    let (jar, agent) = (paths.next().unwrap(), paths.next().unwrap());
    let mut found = false;
    for seed in 0..8 {
        let out = std::process::Command::new("timeout")
            .args(["120", "java"])
            .arg(format!("-agentpath:{agent}=instrument=load,seed={seed}"))
            .arg("-cp")
            .arg(format!("{}:{jar}", classes.display()))
            .arg("missedsignal.Main")
            .current_dir(&dir)
            .output()
            .expect("java runs");
        let text = String::from_utf8_lossy(&out.stderr).to_string()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("blocked where") && !text.contains("could not control"),
            "{text}"
        );
        if text.contains("bug (deadlock)") && text.contains("LockSupport.park") {
            found = true;
            break;
        }
    }
    assert!(found, "no seed of 0..8 found the lost signal");
    let _ = std::fs::remove_dir_all(&dir);
}
