//! Helpers of the `cli_*` end-to-end tests: run the built `rankcheck` binary with a timeout (a
//! hang fails the test instead of stalling CI) and compile test programs.

#![allow(dead_code)]

pub mod junit;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one `rankcheck` run printed and how it ended.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn both(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout, self.stderr
        )
    }
}

/// The workspace root (where `tests/programs` and `contest-bench` are).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rankcheck-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `rankcheck ARGS` in `cwd`; kills it and panics after `limit`.
pub fn rankcheck(cwd: &Path, args: &[&str], limit: Duration) -> Ran {
    rankcheck_env(cwd, args, &[], limit)
}

/// [`rankcheck`] with extra environment variables.
pub fn rankcheck_env(cwd: &Path, args: &[&str], env: &[(&str, &Path)], limit: Duration) -> Ran {
    rankcheck_timed(cwd, args, env, limit).0
}

/// When each stderr line of a run arrived (since the start), and when the run ended.
pub struct Timed {
    pub lines: Vec<(Duration, String)>,
    pub ended: Duration,
}

impl Timed {
    /// The longest stretch without a stderr line: from the start to the first line, between
    /// two lines, and from the last line to the end. The reader thread may stamp the last line
    /// after the exit was seen, so a later stamp than `ended` counts as no silence.
    pub fn longest_silence(&self) -> Duration {
        let mut times: Vec<Duration> = vec![Duration::ZERO];
        times.extend(self.lines.iter().map(|(t, _)| *t));
        times.push(self.ended);
        times
            .windows(2)
            .map(|w| w[1].saturating_sub(w[0]))
            .max()
            .unwrap()
    }

    /// The lines with their times, for assertion messages.
    pub fn text(&self) -> String {
        self.lines
            .iter()
            .map(|(t, l)| format!("{:7.2} s  {l}\n", t.as_secs_f64()))
            .collect()
    }
}

/// [`rankcheck_env`], also saying when each stderr line arrived.
pub fn rankcheck_timed(
    cwd: &Path,
    args: &[&str],
    env: &[(&str, &Path)],
    limit: Duration,
) -> (Ran, Timed) {
    let started = Instant::now();
    // Its own process group, so that a timeout also ends the JVMs it started.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rankcheck"))
        .process_group(0)
        .envs(env.iter().copied())
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the rankcheck binary runs");
    let mut out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut err = BufReader::new(err);
        let (mut all, mut lines) = (Vec::new(), Vec::new());
        loop {
            let mut line = Vec::new();
            match err.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line).trim_end().to_string();
                    lines.push((started.elapsed(), text));
                    all.extend(line);
                }
            }
        }
        (String::from_utf8_lossy(&all).into_owned(), lines)
    });
    let group = format!("-{}", child.id());
    let waited = rankcheck::driver::child::wait_or_stop(&mut child, || {
        (started.elapsed() > limit).then(|| {
            // The JVMs rankcheck started too: the whole process group.
            let _ = Command::new("kill").args(["-9", &group]).status();
        })
    })
    .unwrap();
    let rankcheck::driver::child::Waited::Exited(status) = waited else {
        panic!("rankcheck {args:?} did not finish within {limit:?}");
    };
    let ended = started.elapsed();
    let (stderr, lines) = err_reader.join().unwrap();
    let ran = Ran {
        code: status.code().unwrap_or(-1),
        stdout: out_reader.join().unwrap(),
        stderr,
    };
    (ran, Timed { lines, ended })
}

/// Compiles the program folder `tests/programs/NAME` and returns its classes folder.
pub fn compile_test_program(name: &str, into: &Path) -> PathBuf {
    let program = rankcheck::suite::Program::load(&root().join("tests/programs").join(name))
        .expect("the test program loads");
    rankcheck::suite::compile(&program, &into.join("javac")).expect("the test program compiles")
}

/// Writes `sources` (path below `src/`, text) into `dir/src` and compiles them with javac
/// (`--release 17`) into `dir/classes`, which it returns.
pub fn javac(dir: &Path, sources: &[(&str, &str)]) -> PathBuf {
    let src = dir.join("src");
    let classes = dir.join("classes");
    let mut files = Vec::new();
    for (path, text) in sources {
        let file = src.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        files.push(file);
    }
    std::fs::create_dir_all(&classes).unwrap();
    let javac = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/javac"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("javac"));
    let out = std::process::Command::new(javac)
        .args(["--release", "17", "-d"])
        .arg(&classes)
        .args(&files)
        .output()
        .expect("javac runs");
    assert!(
        out.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    classes
}

/// A sweep's results.csv without the seconds column.
pub fn without_seconds(csv: &str) -> String {
    csv.lines()
        .map(|l| {
            let mut fields: Vec<&str> = l.split(',').collect();
            if fields.len() > 11 {
                fields.remove(11);
            }
            fields.join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The generous bound on one command of these tests.
pub const LIMIT: Duration = Duration::from_secs(240);

/// Asserts that `rankcheck ARGS` is a usage error: exit code 2 and one stderr line naming
/// `needle`.
pub fn assert_usage_error(cwd: &Path, args: &[&str], needle: &str) {
    let ran = rankcheck(cwd, args, LIMIT);
    assert_eq!(ran.code, 2, "{args:?}\n{}", ran.both());
    let lines: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "{args:?}: not one line:\n{}", ran.both());
    assert!(lines[0].contains(needle), "{args:?}: {}", lines[0]);
}

/// `rankcheck test --manifest DIR --json EXTRA…` in `cwd`; the parsed JSON object.
pub fn test_manifest(cwd: &Path, manifest: &Path, extra: &[&str]) -> (Ran, serde_json::Value) {
    test_manifest_within(cwd, manifest, extra, LIMIT)
}

/// `rankcheck test --cp CLASSES --main MAIN --json EXTRA…` in `cwd`; the parsed JSON object.
pub fn test_classes(
    cwd: &Path,
    classes: &Path,
    main: &str,
    extra: &[&str],
) -> (Ran, serde_json::Value) {
    let mut args = vec!["test", "--cp", classes.to_str().unwrap(), "--main", main];
    args.extend(extra);
    args.push("--json");
    let ran = rankcheck(cwd, &args, LIMIT);
    let json = json_stdout(&args, &ran);
    (ran, json)
}

/// The one JSON object `ran` (the command `args`) printed.
fn json_stdout(args: &[&str], ran: &Ran) -> serde_json::Value {
    serde_json::from_str(ran.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON object ({e}):\n{}",
            ran.both()
        )
    })
}

/// [`test_manifest`] with its own bound on the command.
pub fn test_manifest_within(
    cwd: &Path,
    manifest: &Path,
    extra: &[&str],
    limit: Duration,
) -> (Ran, serde_json::Value) {
    let mut args = vec!["test", "--manifest", manifest.to_str().unwrap(), "--json"];
    args.extend(extra);
    let ran = rankcheck(cwd, &args, limit);
    let json = json_stdout(&args, &ran);
    (ran, json)
}

/// What went wrong besides a bug, in one string for assertion messages.
pub fn troubles(json: &serde_json::Value) -> String {
    format!(
        "unreproduced: {}\ninconclusive: {}",
        json["unreproduced"], json["inconclusive"]
    )
}

/// The report folder of a search's `--json` object, which `rankcheck replay` (run in `cwd`)
/// must reproduce (exit 1); `what` names the search in the assertion message.
pub fn assert_report_replays(cwd: &Path, json: &serde_json::Value, what: &str) {
    let report = json["report"]
        .as_str()
        .expect("a report folder")
        .to_string();
    let replayed = rankcheck(cwd, &["replay", &report], LIMIT);
    assert_eq!(
        replayed.code,
        1,
        "{what}: `rankcheck replay {report}` must reproduce\n{}",
        replayed.both()
    );
}
