//! `rankcheck test` and `rankcheck replay` end to end, on a real JVM through the built binary:
//! a known bug is found, reported, replayed; a correct program gets a coverage line; the JSON
//! shape; same seed, same schedules whatever `-j`; usage errors are one line with exit 2.

mod cli_support;

use cli_support::*;
use std::path::Path;

fn report_dir(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report line in:\n{stdout}"))
        .to_string()
}

/// `rankcheck test` of tests/programs/LostUpdate (compiled into `classes`) in `dir`, reports in
/// `dir/reports`: it must find the bug (exit 1).
fn find_lost_update(dir: &Path, classes: &Path) -> Ran {
    let ran = rankcheck(
        dir,
        &[
            "test",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            "lostupdate.Main",
            "--budget",
            "300",
            "-j",
            "1",
            "--out",
            "reports",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    ran
}

#[test]
fn finds_the_lost_update_reports_it_and_the_report_replays() {
    let dir = scratch("lost-update");
    let classes = compile_test_program("LostUpdate", &dir);
    let ran = find_lost_update(&dir, &classes);
    assert!(ran.stdout.contains("lost update"), "{}", ran.both());
    let report = report_dir(&ran.stdout);
    let report = Path::new(&report);
    assert!(report.starts_with(dir.join("reports").canonicalize().unwrap()));
    for file in [
        "schedule.txt",
        "stacks.txt",
        "timeline.txt",
        "run.json",
        "replay.txt",
        "stdout.txt",
    ] {
        assert!(
            report.join(file).is_file(),
            "{file} missing in {}",
            report.display()
        );
    }
    let replay_txt = std::fs::read_to_string(report.join("replay.txt")).unwrap();
    assert!(replay_txt.starts_with("rankcheck replay "), "{replay_txt}");
    let timeline = std::fs::read_to_string(report.join("timeline.txt")).unwrap();
    assert!(
        timeline.contains("t1") && timeline.contains("t2"),
        "{timeline}"
    );

    let replayed = rankcheck(&dir, &["replay", report.to_str().unwrap()], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    assert!(
        replayed.stdout.contains("reproduced"),
        "{}",
        replayed.both()
    );

    // A schedule that runs the two increments one after the other, so the update is not lost:
    // exit 0 and a clear line.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    for f in ["run.json", "result.json"] {
        std::fs::copy(report.join(f), other.join(f)).unwrap();
    }
    std::fs::write(
        other.join("schedule.txt"),
        "rankcheck-schedule 15\nt0*3\nt2*4\nt1*4\nt0*5\n",
    )
    .unwrap();
    let diverged = rankcheck(&dir, &["replay", other.to_str().unwrap()], LIMIT);
    assert_eq!(diverged.code, 0, "{}", diverged.both());
    assert!(
        diverged.stdout.contains("NOT reproduced"),
        "{}",
        diverged.both()
    );

    // A schedule of an older format version means something else now: bad input, said so,
    // from the report folder, from its schedule file, and given to `run --replay`. Version 2
    // is what 0.4.0 to 0.6.0 wrote (0.6.0's idle timeouts changed the meaning, not the header).
    for version in [1, 2] {
        std::fs::write(
            other.join("schedule.txt"),
            format!("rankcheck-schedule {version}\nt0*3\nt2*4\nt1*4\nt0*5\n"),
        )
        .unwrap();
        let schedule = other.join("schedule.txt");
        for target in [&other, &schedule] {
            let old = rankcheck(&dir, &["replay", target.to_str().unwrap()], LIMIT);
            assert_eq!(old.code, 2, "{}", old.both());
            assert!(old.stderr.contains("older rankcheck"), "{}", old.both());
            assert!(
                old.stderr.contains("run the search again"),
                "{}",
                old.both()
            );
        }
    }
    let run = rankcheck(
        &dir,
        &[
            "run",
            "--cp",
            "nowhere",
            "--main",
            "Nothing",
            "--replay",
            other.join("schedule.txt").to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(run.code, 2, "{}", run.both());
    assert!(
        run.stderr.contains("run the search again"),
        "{}",
        run.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_correct_program_passes_with_a_coverage_line_and_json() {
    let dir = scratch("fixed");
    let manifest = root().join("tests/programs/LostUpdateFixed");
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--budget",
            "60",
            "-j",
            "1",
            "--json",
            "-c",
            "2",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}):\n{}", ran.both()));
    assert_eq!(json["bug"], false);
    assert_eq!(json["executions"], 60);
    assert_eq!(json["strategy"], rankcheck::driver::strategy::DEFAULT);
    assert!(json["seconds"].as_f64().unwrap() > 0.0);
    assert!(json["bounds"].is_object());
    assert!(json["report"].is_null());
    assert!(json["coverage"]
        .as_str()
        .unwrap()
        .contains("60 execution(s)"));
    // The human lines go to stderr under --json, the unused bound is said once.
    assert!(
        ran.stderr.contains("coverage: 60 execution(s)"),
        "{}",
        ran.both()
    );
    assert_eq!(
        ran.stderr.matches("does not use c").count(),
        1,
        "{}",
        ran.both()
    );

    let plain = rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--budget",
            "20",
            "-j",
            "1",
        ],
        LIMIT,
    );
    assert_eq!(plain.code, 0, "{}", plain.both());
    assert!(plain.stdout.contains("no bug found"), "{}", plain.both());
    assert!(
        plain.stdout.contains("coverage: 20 execution(s)"),
        "{}",
        plain.both()
    );

    // An exhaustive search that finishes within the budget claims its bound.
    let icb = rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--strategy",
            "icb",
            "-c",
            "1",
            "-j",
            "1",
        ],
        LIMIT,
    );
    assert_eq!(icb.code, 0, "{}", icb.both());
    assert!(
        icb.stdout.contains("with <= 1 preemption")
            || icb.stdout.contains("with at most 1 preemption"),
        "{}",
        icb.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_seed_gives_the_same_schedules_whatever_the_parallelism() {
    let dir = scratch("seeds");
    let manifest = root().join("tests/programs/LostUpdate");
    let mut schedules = Vec::new();
    for (jobs, out) in [("1", "a"), ("2", "b")] {
        let ran = rankcheck(
            &dir,
            &[
                "test",
                "--manifest",
                manifest.to_str().unwrap(),
                "--strategy",
                "pct",
                "-d",
                "2",
                "--seed",
                "7",
                "--budget",
                "500",
                "-j",
                jobs,
                "--out",
                out,
                "--json",
            ],
            LIMIT,
        );
        assert_eq!(ran.code, 1, "{}", ran.both());
        let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).unwrap();
        let report = json["report"].as_str().unwrap().to_string();
        schedules.push((
            json["executions"].clone(),
            std::fs::read_to_string(Path::new(&report).join("schedule.txt")).unwrap(),
        ));
    }
    assert_eq!(schedules[0], schedules[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_run_with_the_same_out_keeps_the_first_report() {
    let dir = scratch("report-twice");
    let classes = compile_test_program("LostUpdate", &dir);
    let run = || find_lost_update(&dir, &classes).stdout;
    let first_out = run();
    let first = report_dir(&first_out);
    let first_result = std::fs::read(Path::new(&first).join("result.json")).unwrap();
    let second_out = run();
    let second = report_dir(&second_out);
    // The same seed finds the same bug at the same execution: the same name, so the second
    // run takes the next one, and the first folder is as the first run left it.
    assert_eq!(second, format!("{first}-2"), "{second_out}");
    assert_eq!(
        std::fs::read(Path::new(&first).join("result.json")).unwrap(),
        first_result
    );
    // What the second run prints and writes names its own folder.
    assert!(
        second_out.contains(&format!("replay: rankcheck replay {second}\n")),
        "{second_out}"
    );
    let replay_txt = std::fs::read_to_string(Path::new(&second).join("replay.txt")).unwrap();
    assert!(replay_txt.contains(&second), "{replay_txt}");
    let replayed = rankcheck(&dir, &["replay", &second], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn usage_errors_are_one_line_with_exit_code_2() {
    let dir = scratch("usage");
    let classes = compile_test_program("LostUpdate", &dir);
    let cp = classes.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "test",
                "--cp",
                cp,
                "--main",
                "lostupdate.Main",
                "--strategy",
                "fastest",
            ],
            "unknown strategy",
        ),
        (
            vec![
                "test",
                "--cp",
                cp,
                "--main",
                "nosuch.Main",
                "--budget",
                "5",
                "-j",
                "1",
            ],
            "nosuch.Main",
        ),
        (
            vec!["test", "--cp", "/no/such/dir", "--main", "lostupdate.Main"],
            "no such file",
        ),
        (
            vec![
                "test",
                "--cp",
                cp,
                "--main",
                "lostupdate.Main",
                "--budget",
                "0",
            ],
            "--budget",
        ),
        (vec!["replay", "/no/such/report"], "no such report"),
    ];
    for (args, needle) in cases {
        assert_usage_error(&dir, &args, needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_oracles_work_with_parallel_jvms_and_replay() {
    let dir = scratch("file-oracle");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/Writer.java"),
        "public class Writer { public static void main(String[] a) throws Exception {\n\
         java.nio.file.Files.writeString(java.nio.file.Path.of(\"out.txt\"), a[0]); } }\n",
    )
    .unwrap();
    let javac = std::process::Command::new("javac")
        .args(["-d", "classes", "src/Writer.java"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(javac.success());
    let test = |word: &str| {
        rankcheck(
            &dir,
            &[
                "test",
                "--cp",
                "classes",
                "--main",
                "Writer",
                "--fail-on-file",
                "out.txt=^BUG",
                "--budget",
                "3",
                "-j",
                "2",
                "--fork",
                "--out",
                "reports",
                "--",
                word,
            ],
            LIMIT,
        )
    };
    let clean = test("fine");
    assert_eq!(clean.code, 0, "{}", clean.both());
    let bug = test("BUG");
    assert_eq!(bug.code, 1, "{}", bug.both());
    assert!(bug.stdout.contains("(file)"), "{}", bug.both());
    // Parallel JVMs write in their own folders, not in ours.
    assert!(!dir.join("out.txt").exists());
    let replayed = rankcheck(&dir, &["replay", &report_dir(&bug.stdout)], LIMIT);
    assert_eq!(replayed.code, 1, "{}", replayed.both());
    let _ = std::fs::remove_dir_all(&dir);
}
