//! `rankcheck sweep` end to end: a small sweep run twice gives the same tables (seconds
//! aside), finds the bug of a buggy program, reports nothing in its correct variant, and writes
//! every output; bad ranges are usage errors.

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
