//! `rankcheck sweep` end to end: a small sweep run twice gives the same tables (seconds
//! aside), finds the bug of a buggy program, reports nothing in its correct variant, and writes
//! every output; bad ranges are usage errors. `rankcheck bench strategies`, which runs on the
//! sweep's machinery, gives executions to the first bug per program and strategy.

mod cli_support;

use cli_support::*;

#[test]
fn a_small_sweep_twice_gives_identical_tables() {
    let dir = scratch("sweep");
    let suite = root().join("tests/programs");
    let mut outputs = Vec::new();
    for out in ["one", "two"] {
        let ran = rankcheck(
            &dir,
            &[
                "sweep",
                suite.to_str().unwrap(),
                "--programs",
                "LostUpdate,LostUpdateFixed",
                "--strategies",
                "random,pct",
                "--seeds",
                "2",
                "--budget",
                "30",
                "-j",
                "2",
                "--out",
                out,
            ],
            LIMIT,
        );
        assert_eq!(ran.code, 0, "{}", ran.both());
        let read = |f: &str| std::fs::read_to_string(dir.join(out).join(f)).unwrap();
        for f in [
            "results.json",
            "schedules-to-bug.svg",
            "bugs-vs-executions.svg",
            "table4.md",
        ] {
            assert!(dir.join(out).join(f).is_file(), "{f} missing");
        }
        outputs.push((
            read("table1.md"),
            read("summary.md"),
            without_seconds(&read("results.csv")),
        ));
        let summary = &outputs.last().unwrap().1;
        assert!(
            summary.contains("| LostUpdateFixed | correct | no report | no report |"),
            "{summary}"
        );
        assert!(ran.stdout.contains("Table 1"), "{}", ran.both());
    }
    assert_eq!(outputs[0], outputs[1]);
    let csv = &outputs[0].2;
    assert!(
        csv.lines()
            .any(|l| l.starts_with("LostUpdate,false,random,") && l.contains(",true,")),
        "{csv}"
    );
    assert!(
        !csv.lines()
            .any(|l| l.starts_with("LostUpdateFixed,") && l.contains(",true,uncaught")),
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_sweep_input_is_a_one_line_usage_error() {
    let dir = scratch("sweep-usage");
    let suite = root().join("tests/programs");
    for (args, needle) in [
        (vec!["sweep", suite.to_str().unwrap(), "--c", "3..1"], "--c"),
        (
            vec!["sweep", suite.to_str().unwrap(), "--strategies", "nope"],
            "unknown strategy",
        ),
        (
            vec![
                "sweep",
                suite.to_str().unwrap(),
                "--programs",
                "NoSuchProgram",
            ],
            "NoSuchProgram",
        ),
        (vec!["sweep", "/no/such/suite"], "no such suite"),
    ] {
        assert_usage_error(&dir, &args, needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_strategies_tables_executions_to_the_bug_per_strategy() {
    let dir = scratch("bench-strategies");
    let suite = root().join("tests/programs");
    let ran = rankcheck(
        &dir,
        &[
            "bench",
            "strategies",
            suite.to_str().unwrap(),
            "--programs",
            "LostUpdate,CheckThenAct",
            "--strategies",
            "pos,portfolio",
            "--seeds",
            "2",
            "--budget",
            "200",
            "-j",
            "1",
            "--json",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    let json: serde_json::Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert_eq!(json["searches"], 8, "{json}");
    let table = &json["table"];
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{json}");
    for row in rows {
        for cell in row[1].as_array().unwrap() {
            assert_eq!(cell["seeds"], 2, "{row}");
            assert_eq!(cell["found"], 2, "{row}: every seed finds these bugs");
            let mean = cell["mean_found"].as_f64().unwrap();
            assert!((1.0..=200.0).contains(&mean), "{row}");
        }
    }
    for s in table["summaries"].as_array().unwrap() {
        assert!(s["geomean"].as_f64().unwrap() >= 1.0, "{s}");
        assert_eq!(s["programs_found"], 2, "{s}");
        assert_eq!(s["lower_bound"], false, "{s}");
    }
    // The markdown table of the same run, less the JSON.
    let md = rankcheck(
        &dir,
        &[
            "bench",
            "strategies",
            suite.to_str().unwrap(),
            "--programs",
            "LostUpdate",
            "--strategies",
            "pos",
            "--seeds",
            "1",
            "--budget",
            "200",
            "-j",
            "1",
        ],
        LIMIT,
    );
    assert_eq!(md.code, 0, "{}", md.both());
    assert!(md.stdout.contains("| Program | pos |"), "{}", md.stdout);
    assert!(md.stdout.contains("| LostUpdate | "), "{}", md.stdout);
    assert!(
        md.stdout
            .contains("| geometric mean of executions to the bug | "),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("| found within 100 executions | 1/1 |"),
        "{}",
        md.stdout
    );
}

#[test]
fn bad_bench_strategies_input_is_a_one_line_usage_error() {
    let dir = scratch("bench-strategies-bad");
    let suite = root().join("tests/programs");
    let suite = suite.to_str().unwrap();
    assert_usage_error(
        &dir,
        &["bench", "strategies", suite, "--strategies", "nope"],
        "nope",
    );
    assert_usage_error(
        &dir,
        &["bench", "strategies", suite, "--strategies", "icb"],
        "exhaustive",
    );
    assert_usage_error(
        &dir,
        &["bench", "strategies", suite, "--seeds", "0"],
        "--seeds",
    );
    assert_usage_error(
        &dir,
        &[
            "bench",
            "strategies",
            suite,
            "--programs",
            "LostUpdateFixed",
        ],
        "LostUpdateFixed",
    );
    assert_usage_error(&dir, &["bench", "strategies", "/no/such/suite"], "no such");
}
