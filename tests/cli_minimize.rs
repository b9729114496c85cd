//! Minimal failing schedules (docs/CLI.md): on the RankChecker paper's Figures 1–4, a found
//! bug's report shows a minimal schedule with exactly the paper's preemption count c (the
//! manifests' `[expected] c`), `rankcheck replay` of the report replays it (and `--original`
//! the search's), and `--no-minimize` leaves only the search's schedule. Fixed seeds, `-j 1`.

mod cli_support;

use cli_support::*;
use std::path::Path;

/// The manifest's `c = N` under `[expected]`.
fn expected_c(program: &str) -> u64 {
    let text = std::fs::read_to_string(
        root()
            .join("tests/programs")
            .join(program)
            .join("manifest.toml"),
    )
    .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("c = "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{program}: no expected c"))
}

fn search(program: &str, strategy: &str, out: &Path, extra: &[&str]) -> serde_json::Value {
    let manifest = ["tests/programs", "tests/shrink-programs"]
        .iter()
        .map(|suite| root().join(suite).join(program))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("{program}: no such program"));
    let mut args = vec![
        "--strategy",
        strategy,
        "--seed",
        "1",
        "-j",
        "1",
        "--budget",
        "5000",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let (ran, json) = test_manifest(&root(), &manifest, &args);
    assert_eq!(ran.code, 1, "{program}: a bug is found\n{}", ran.both());
    json
}

#[test]
fn the_paper_figures_minimize_to_the_papers_preemptions() {
    let out = scratch("minimize-figures");
    // The strategy whose first failure fails the way the smallest schedule does (a
    // candidate counts only when it fails with the same message).
    for (program, strategy) in [
        ("PaperFig1", "random"),
        ("PaperFig2", "pos"),
        ("PaperFig3", "pos"),
        ("PaperFig4", "pos"),
    ] {
        let json = search(program, strategy, &out, &[]);
        let c = expected_c(program);
        let minimal = &json["minimal"];
        assert_eq!(
            minimal["preemptions"].as_u64(),
            Some(c),
            "{program}: the minimal schedule has the paper's c\n{json:#}"
        );
        assert!(minimal["preemptions_before"].as_u64().unwrap() >= c);
        let report = Path::new(json["report"].as_str().unwrap());
        assert!(
            report.join("schedule.txt").is_file(),
            "{program}: the original stays"
        );
        assert!(report.join("minimal-schedule.txt").is_file());
        let explanation = std::fs::read_to_string(report.join("explanation.txt")).unwrap();
        let plural = if c == 1 { "" } else { "s" };
        assert!(
            explanation.contains(&format!(
                "minimal schedule: fails with {c} preemption{plural}"
            )),
            "{program}: {explanation}"
        );
        if c > 0 {
            assert!(
                explanation.contains("between t1 and t2"),
                "{program}: {explanation}"
            );
        }
    }
    // The last report replays its minimal schedule, and its original one on request.
    let json = search("PaperFig2", "pos", &out, &[]);
    assert_report_replays(&root(), &json, "PaperFig2's minimal schedule");
    let report = json["report"].as_str().unwrap();
    let original = rankcheck(&root(), &["replay", report, "--original"], LIMIT);
    assert_eq!(original.code, 1, "{}", original.both());
}

/// Twenty writers and a reader started last: the search's schedule preempts every writer that
/// started before the reader read; letting the reader run first where main's join leaves the
/// choice free needs one preemption (with the passes that only drop, move or redirect
/// preemptions, 11 were left after 2,000 candidates).
#[test]
fn a_thread_that_must_run_first_costs_no_preemptions() {
    let out = scratch("minimize-torn");
    let json = search("TornPair", "surw", &out, &[]);
    let minimal = &json["minimal"];
    assert_eq!(minimal["preemptions"].as_u64(), Some(1), "{json:#}");
    assert_eq!(
        minimal["threads"].as_array().map(Vec::len),
        Some(2),
        "{json:#}"
    );
    assert_eq!(minimal["complete"].as_bool(), Some(true), "{json:#}");
    assert!(
        minimal["preemptions_before"].as_u64().unwrap() > 1,
        "{json:#}"
    );
    assert_report_replays(&root(), &json, "TornPair's minimal schedule");
}

#[test]
fn no_minimize_keeps_only_the_schedule_found() {
    let out = scratch("minimize-off");
    let json = search("PaperFig2", "pos", &out, &["--no-minimize"]);
    assert!(json["minimal"].is_null(), "{json:#}");
    let report = Path::new(json["report"].as_str().unwrap());
    assert!(report.join("schedule.txt").is_file());
    assert!(!report.join("minimal-schedule.txt").exists());
    assert_report_replays(&root(), &json, "PaperFig2 without minimizing");
}
