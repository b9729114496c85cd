//! Long commands are never silent (docs/CLI.md, "Progress"): with stderr a pipe, `rankcheck
//! test`, `rankcheck run` and `rankcheck sweep` print a `rankcheck: progress:` line at least every 10 s, also
//! while single executions take seconds and while a sweep's searches run; the test takes the
//! time of each stderr line as it arrives and allows no stretch over 12 s without one.

mod cli_support;

use cli_support::*;
use std::time::Duration;

/// The most a command may go without a stderr line: the promised 10 s and a margin for a
/// loaded machine.
const SILENCE: Duration = Duration::from_secs(12);

/// A program written the usual way: unnamed threads that print, each doing seconds of work of
/// its own (the count of loop rounds is the argument) before a synchronized increment.
const TALLY: &str = r#"
public class Tally {
    static int total;

    public static void main(String[] args) throws Exception {
        long rounds = Long.parseLong(args[0]);
        Thread[] workers = new Thread[2];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(() -> {
                long h = 7;
                for (long k = 0; k < rounds; k++) {
                    h = h * 31 + k;
                }
                synchronized (Tally.class) {
                    total++;
                }
                System.out.println(Thread.currentThread().getName() + " done " + (h & 0xff));
            });
            workers[i].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        System.out.println("total " + total);
        if (total != 2) {
            throw new AssertionError("lost an update: " + total);
        }
    }
}
"#;

fn progress_lines(timed: &Timed) -> Vec<&str> {
    timed
        .lines
        .iter()
        .map(|(_, l)| l.as_str())
        .filter(|l| l.starts_with("rankcheck: progress: "))
        .collect()
}

fn assert_never_quiet(timed: &Timed) {
    assert!(
        timed.longest_silence() <= SILENCE,
        "{:?} without a stderr line:\n{}",
        timed.longest_silence(),
        timed.text()
    );
}

#[test]
fn a_long_test_prints_progress_at_least_every_ten_seconds() {
    let dir = scratch("progress-test");
    let classes = javac(&dir, &[("Tally.java", TALLY)]);
    // Executions of about a second each (two threads of 500 million rounds), for 25 s.
    let (ran, timed) = rankcheck_timed(
        &dir,
        &[
            "test",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            "Tally",
            "--budget",
            "100000",
            "--time-limit",
            "25",
            "-j",
            "1",
            "--json",
            "--",
            "500000000",
        ],
        &[],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    // stdout is still the one JSON object; the lines went to stderr.
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", ran.both()));
    assert_eq!(json["bug"], false, "{json}");
    let lines = progress_lines(&timed);
    assert!(
        lines.len() >= 2,
        "two progress lines in 25 s:\n{}",
        timed.text()
    );
    for l in &lines {
        assert!(
            l.contains("/100,000 executions, 0 bugs, ")
                && l.contains(" exec/s, ")
                && l.contains(" s elapsed"),
            "{l}"
        );
    }
    assert_never_quiet(&timed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_run_prints_progress_at_least_every_ten_seconds() {
    let dir = scratch("progress-run");
    let classes = javac(&dir, &[("Tally.java", TALLY)]);
    // 20 executions of about a second each, in one JVM: before, `run` said nothing until the
    // JVM ended.
    let (ran, timed) = rankcheck_timed(
        &dir,
        &[
            "run",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            "Tally",
            "--executions",
            "20",
            "--",
            "500000000",
        ],
        &[],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(
        ran.stdout.contains("rankcheck: 20 execution(s)"),
        "{}",
        ran.both()
    );
    let lines = progress_lines(&timed);
    assert!(!lines.is_empty(), "no progress line:\n{}", timed.text());
    for l in &lines {
        assert!(l.contains("/20 executions, 0 bugs, "), "{l}");
    }
    assert_never_quiet(&timed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sweep_prints_progress_while_its_searches_run() {
    let dir = scratch("progress-sweep");
    // Four searches of 2,000 executions of two correct programs: about 30 s on 2 cores.
    let (ran, timed) = rankcheck_timed(
        &dir,
        &[
            "sweep",
            "--programs",
            "AccountFixed,BubbleSortFixed",
            "--strategies",
            "pos,random",
            "--c",
            "0",
            "--budget",
            "2000",
            "--out",
            "sweep",
        ],
        &[],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(dir.join("sweep/results.csv").is_file());
    let lines = progress_lines(&timed);
    // About 30 s on this project's 2 cores; a machine that runs it in 12 s needs no line.
    if timed.ended > SILENCE {
        assert!(!lines.is_empty(), "no progress line:\n{}", timed.text());
    }
    for l in &lines {
        assert!(
            l.contains("/4 searches, ") && l.contains(" executions, 0 bugs, "),
            "{l}"
        );
    }
    assert_never_quiet(&timed);
    let _ = std::fs::remove_dir_all(&dir);
}
