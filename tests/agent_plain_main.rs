//! Plain main under the agent, on a real JVM: `java -agentpath:…=OPTIONS -cp APP:RT Main`, the
//! program's own main class (no harness). One controlled execution per JVM; the exit status says
//! what happened (0 / the program's status, 86 bug, 87 inconclusive); a bug's schedule replays
//! with `replay=FILE`. Every JVM has a wall-clock guard.

mod agent_support;

use agent_support::{java_tool, repo, Output};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

const GUARD: Duration = Duration::from_secs(120);
const STATUS_BUG: i32 = 86;
const STATUS_INCONCLUSIVE: i32 = 87;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rankcheck-plain-main-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rankcheck() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rankcheck"))
}

/// (runtime jar, agent library), from `rankcheck rt`.
fn runtime() -> &'static (PathBuf, PathBuf) {
    static RT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    RT.get_or_init(|| {
        let out = rankcheck().arg("rt").output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        (
            PathBuf::from(lines.next().unwrap()),
            PathBuf::from(lines.next().unwrap()),
        )
    })
}

/// The agent test programs, compiled, then instrumented (`app`) and instrumented
/// self-contained (`self-contained`).
fn programs() -> &'static (PathBuf, PathBuf) {
    static P: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    P.get_or_init(|| {
        let dir = scratch();
        let classes = dir.join("classes");
        let sources: Vec<PathBuf> = [
            "LostUpdate",
            "SyncCounter",
            "Deadlock",
            "PipeRead",
            "AppThreadCpus",
        ]
        .iter()
        .map(|n| repo().join(format!("tests/java/agent/{n}.java")))
        .collect();
        let status = Command::new(java_tool("javac"))
            .args(["-g", "-d"])
            .arg(&classes)
            .args(&sources)
            .status()
            .unwrap();
        assert!(status.success());
        let app = dir.join("app");
        let sc = dir.join("self-contained");
        for (out, extra) in [(&app, None), (&sc, Some("--self-contained"))] {
            let mut cmd = rankcheck();
            cmd.arg("instrument").arg("-o").arg(out).arg(&classes);
            cmd.args(extra);
            assert!(cmd.status().unwrap().success());
        }
        (app, sc)
    })
}

type Ran = Output;

fn guarded(cmd: Command) -> Ran {
    agent_support::guarded(cmd, GUARD)
}

/// `java -ea -agentpath:AGENT=OPTIONS -cp CP MAIN`, in `cwd`.
fn java(options: &str, cp: &str, main: &str, cwd: &Path) -> Ran {
    let (_, agent) = runtime();
    let mut cmd = Command::new(java_tool("java"));
    cmd.current_dir(cwd)
        .arg("-ea")
        .arg(format!("-agentpath:{}={options}", agent.display()))
        .args(["-cp", cp, main]);
    guarded(cmd)
}

fn app_cp() -> String {
    format!("{}:{}", programs().0.display(), runtime().0.display())
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn result(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "one execution per JVM: {text}");
    serde_json::from_str(lines[0]).unwrap()
}

#[test]
fn a_lost_update_is_found_and_its_schedule_replays() {
    let dir = fresh_dir("lost-update");
    let mut found = None;
    for seed in 1..=8 {
        let out = dir.join(format!("r{seed}.jsonl"));
        let ran = java(
            &format!("strategy=random,seed={seed},out={}", out.display()),
            &app_cp(),
            "LostUpdate",
            &dir,
        );
        let r = result(&out);
        if ran.code == Some(STATUS_BUG) {
            assert_eq!(r["outcome"], "bug", "{r}");
            assert_eq!(r["kind"], "uncaught", "{r}");
            found = Some((seed, out, r));
            break;
        }
        assert_eq!(ran.code, Some(0), "{}", ran.explain());
        assert_eq!(r["outcome"], "pass");
    }
    let (seed, out, r) = found.expect("no seed of 1..=8 lost the update");
    assert!(
        r["message"].as_str().unwrap().contains("lost update"),
        "{r}"
    );
    let schedule = PathBuf::from(format!("{}.schedule.txt", out.display()));
    assert!(schedule.is_file());
    let again_out = dir.join("replay.jsonl");
    let again = java(
        &format!(
            "seed={seed},replay={},out={}",
            schedule.display(),
            again_out.display()
        ),
        &app_cp(),
        "LostUpdate",
        &dir,
    );
    assert_eq!(again.code, Some(STATUS_BUG), "{}", again.explain());
    let a = result(&again_out);
    assert_eq!(a["kind"], "uncaught");
    assert_eq!(a["message"], r["message"]);
    assert_eq!(a["steps"], r["steps"]);
}

#[test]
fn the_stderr_paragraph_gives_a_replay_line_that_reproduces_the_bug() {
    let dir = fresh_dir("paragraph");
    let mut line = None;
    for seed in 1..=8 {
        let ran = java(
            &format!("strategy=random,seed={seed}"),
            &app_cp(),
            "LostUpdate",
            &dir,
        );
        if ran.code == Some(STATUS_BUG) {
            assert!(ran.stderr.contains("bug (uncaught)"), "{}", ran.explain());
            assert!(ran.stderr.contains("schedule: "), "{}", ran.explain());
            line = ran
                .stderr
                .lines()
                .find_map(|l| l.trim().strip_prefix("replay: "))
                .map(str::to_string);
            break;
        }
    }
    let line = line.expect("no seed of 1..=8 lost the update");
    assert!(
        line.contains("replay=") && line.ends_with("LostUpdate"),
        "{line}"
    );
    let mut cmd = Command::new("sh");
    cmd.current_dir(&dir).args(["-c", &line]);
    let again = guarded(cmd);
    assert_eq!(again.code, Some(STATUS_BUG), "{}", again.explain());
    assert!(again.stderr.contains("lost update"), "{}", again.explain());
}

/// The `thread N: CPUS` lines of AppThreadCpus, CPUS per thread.
fn allowed_cpus(ran: &Ran) -> Vec<String> {
    let cpus: Vec<String> = ran
        .stdout
        .lines()
        .filter_map(|l| {
            l.strip_prefix("thread ")?
                .split_once(": ")
                .map(|(_, c)| c.into())
        })
        .collect();
    assert_eq!(cpus.len(), 3, "{}", ran.explain());
    cpus
}

#[test]
fn application_threads_share_one_cpu_unless_pin_app_is_off() {
    let dir = fresh_dir("pin-app");
    let everywhere = {
        let mut cmd = Command::new(java_tool("java"));
        cmd.args(["-cp", &app_cp(), "AppThreadCpus"]);
        allowed_cpus(&guarded(cmd))
    };
    let pinned = java("strategy=random,seed=1", &app_cp(), "AppThreadCpus", &dir);
    assert_eq!(pinned.code, Some(0), "{}", pinned.explain());
    let pinned = allowed_cpus(&pinned);
    let cpu = &pinned[0];
    assert!(cpu.parse::<u32>().is_ok(), "one CPU, not {cpu}");
    assert!(pinned.iter().all(|c| c == cpu), "{pinned:?}");
    let free = java(
        "strategy=random,seed=1,pin-app=off",
        &app_cp(),
        "AppThreadCpus",
        &dir,
    );
    assert_eq!(free.code, Some(0), "{}", free.explain());
    assert_eq!(allowed_cpus(&free), everywhere);
}

#[test]
fn a_correct_program_exits_zero() {
    let dir = fresh_dir("correct");
    for seed in [1, 2] {
        let ran = java(
            &format!("strategy=pct,seed={seed}"),
            &app_cp(),
            "SyncCounter",
            &dir,
        );
        assert_eq!(ran.code, Some(0), "{}", ran.explain());
        assert!(ran.stderr.contains("pass (finished)"), "{}", ran.explain());
    }
}

#[test]
fn a_deadlock_is_reported_with_every_threads_stack() {
    let dir = fresh_dir("deadlock");
    let found = (1..=8).any(|seed| {
        let out = dir.join(format!("r{seed}.jsonl"));
        let ran = java(
            &format!("seed={seed},out={}", out.display()),
            &app_cp(),
            "Deadlock",
            &dir,
        );
        let r = result(&out);
        if ran.code == Some(0) {
            return false;
        }
        assert_eq!(ran.code, Some(STATUS_BUG), "{}", ran.explain());
        assert_eq!(r["kind"], "deadlock", "{r}");
        let stacks = r["stacks"].as_array().unwrap();
        assert_eq!(stacks.len(), 3, "{r}");
        assert!(
            stacks.iter().all(|s| s["frames"][0]
                .as_str()
                .is_some_and(|f| f.starts_with("at Deadlock."))),
            "{r}"
        );
        true
    });
    assert!(found, "no seed of 1..=8 deadlocked");
}

#[test]
fn a_thread_blocked_in_io_is_inconclusive_not_a_bug() {
    let dir = fresh_dir("blocked");
    let out = dir.join("r.jsonl");
    let ran = java(
        &format!("block-ms=300,out={}", out.display()),
        &app_cp(),
        "PipeRead",
        &dir,
    );
    assert_eq!(ran.code, Some(STATUS_INCONCLUSIVE), "{}", ran.explain());
    let r = result(&out);
    assert_eq!(r["outcome"], "inconclusive", "{r}");
    assert_eq!(r["kind"], "blocked", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("t1 (reader)"),
        "{r}"
    );
}

#[test]
fn self_contained_output_runs_with_only_the_agent_and_its_own_class_path() {
    let dir = fresh_dir("run-self-contained");
    let cp = programs().1.display().to_string();
    let ok = java("seed=1", &cp, "SyncCounter", &dir);
    assert_eq!(ok.code, Some(0), "{}", ok.explain());
    let found = (1..=8).any(|seed| {
        let ran = java(&format!("seed={seed}"), &cp, "LostUpdate", &dir);
        assert!(
            matches!(ran.code, Some(0) | Some(STATUS_BUG)),
            "{}",
            ran.explain()
        );
        ran.code == Some(STATUS_BUG) && ran.stderr.contains("lost update")
    });
    assert!(
        found,
        "no seed of 1..=8 lost the update in the self-contained program"
    );
}

#[test]
fn a_main_class_that_cannot_be_loaded_is_not_a_pass() {
    let dir = fresh_dir("no-main");
    let ran = java("seed=1", &app_cp(), "NoSuchMain", &dir);
    assert_eq!(ran.code, Some(88), "{}", ran.explain());
    assert!(
        ran.stderr.contains("could not be loaded or initialized"),
        "{}",
        ran.explain()
    );
}
