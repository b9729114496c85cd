//! Run-time variables (issue 5, agent/src/naming.rs) on a real JVM: a class path instrumented
//! for a variable set makes only accesses to that set's objects scheduling points, and the
//! loop-iteration bound `l` decides which objects made in a loop the exhaustive RankChecker
//! searches.

mod cli_support;

use cli_support::*;
use std::path::Path;

fn json_of(ran: &Ran) -> serde_json::Value {
    let line = ran.stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {}", ran.both()))
}

/// `rankcheck test` of LoopIterationRace with exhaustive RankChecker at c = 1, v = 1, t = 2 and
/// loop-iteration bound `l`, optionally `--selective`.
fn loop_race(dir: &Path, l: &str, selective: bool) -> Ran {
    let manifest = root().join("tests/programs/LoopIterationRace");
    let mut args = vec![
        "test",
        "--manifest",
        manifest.to_str().unwrap(),
        "--strategy",
        "rankchecker-exhaustive",
        "-c",
        "1",
        "-v",
        "1",
        "-t",
        "2",
        "-l",
        l,
        "--budget",
        "5000",
        "-j",
        "1",
        "--json",
    ];
    if selective {
        args.extend(["--selective", "--budget-per-set", "5000"]);
    }
    rankcheck(dir, &args, LIMIT)
}

#[test]
fn the_second_object_of_a_loop_is_searched_at_l_2_and_not_at_l_1() {
    for selective in [false, true] {
        let dir = scratch(&format!("naming-loop-{selective}"));
        let at_1 = loop_race(&dir, "1", selective);
        assert_eq!(
            at_1.code,
            0,
            "l = 1, selective {selective}: {}",
            at_1.both()
        );
        let report = json_of(&at_1);
        let coverage = report["coverage"].as_str().unwrap_or_default();
        // Exhausted: the exhaustive search's own statement, and well within the budget.
        assert!(
            coverage.contains("every variable set of variables with loop iteration < 1"),
            "l = 1 did not exhaust: {coverage}"
        );
        assert!(report["executions"].as_u64().unwrap() < 5000, "{report}");

        let at_2 = loop_race(&dir, "2", selective);
        assert_eq!(
            at_2.code,
            1,
            "l = 2, selective {selective}: {}",
            at_2.both()
        );
        assert!(
            at_2.both().contains("lost update on cell 1"),
            "{}",
            at_2.both()
        );
    }
}

/// The analysis of test program `name` (main class `main`): its classes folder and analysis file.
fn analyze(dir: &Path, name: &str, main: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let classes = compile_test_program(name, dir);
    let analysis = dir.join("analysis.json");
    let ran = rankcheck(
        dir,
        &[
            "analyze",
            "--cp",
            classes.to_str().unwrap(),
            "--main",
            main,
            "-o",
            analysis.to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
    (classes, analysis)
}

/// The ids of the allocation variables of type `ty`, in allocation-site order.
fn alloc_variables(analysis: &Path, ty: &str) -> Vec<String> {
    let text = std::fs::read_to_string(analysis).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut vars: Vec<(u64, u64)> = file["variables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "alloc" && v["type"] == ty)
        .map(|v| {
            (
                v["site"]["bci"].as_u64().unwrap(),
                v["id"].as_u64().unwrap(),
            )
        })
        .collect();
    vars.sort_unstable();
    vars.into_iter().map(|(_, id)| id.to_string()).collect()
}

fn random_search(dir: &Path, cp: &Path, main: &str) -> Ran {
    rankcheck(
        dir,
        &[
            "test",
            "--cp",
            cp.to_str().unwrap(),
            "--main",
            main,
            "--strategy",
            "random",
            "--budget",
            "300",
            "-j",
            "1",
        ],
        LIMIT,
    )
}

fn instrument(dir: &Path, input: &Path, output: &Path, analysis: &Path, var: &str) {
    let ran = rankcheck(
        dir,
        &[
            "instrument",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
            "--analysis",
            analysis.to_str().unwrap(),
            "--vars",
            var,
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 0, "{}", ran.both());
}

const MAIN: &str = "untracked.Main";

#[test]
fn only_accesses_to_the_tracked_objects_are_scheduling_points() {
    let dir = scratch("naming-untracked");
    let (classes, analysis) = analyze(&dir, "UntrackedObjects", "untracked.Main");
    let counters = alloc_variables(&analysis, "untracked/Main$Counter");
    let [guarded, racy] = counters.as_slice() else {
        panic!("two Counter variables expected: {counters:?}");
    };

    // Instrumented for the guarded counter: `add`'s accesses are instrumented (the analysis
    // cannot tell the counters apart there), but the racy counter's are no scheduling points.
    let for_guarded = dir.join("guarded");
    instrument(&dir, &classes, &for_guarded, &analysis, guarded);
    let table_file = for_guarded.join("META-INF/rankcheck/sites.tsv");
    let table = std::fs::read_to_string(&table_file).unwrap();
    assert!(
        table
            .lines()
            .any(|l| l.contains("\tadd\t") && l.contains("field-write")),
        "{table}"
    );
    assert!(table.contains("#tracked\talloc\t"), "{table}");
    let ran = random_search(&dir, &for_guarded, MAIN);
    assert_eq!(ran.code, 0, "{}", ran.both());

    // The same instrumentation without its tracked table: every access is a point again, and
    // the racy counter's lost update is found.
    let untabled = dir.join("untabled");
    instrument(&dir, &classes, &untabled, &analysis, guarded);
    let plain: String = table
        .lines()
        .filter(|l| !l.starts_with("#tracked"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(untabled.join("META-INF/rankcheck/sites.tsv"), plain).unwrap();
    let ran = random_search(&dir, &untabled, MAIN);
    assert_eq!(ran.code, 1, "{}", ran.both());

    // Instrumented for the racy counter (into a jar: the table travels in it): found.
    let jar = dir.join("app.jar");
    let status = std::process::Command::new("jar")
        .args([
            "cf",
            jar.to_str().unwrap(),
            "-C",
            classes.to_str().unwrap(),
            ".",
        ])
        .status()
        .expect("jar runs");
    assert!(status.success());
    let for_racy = dir.join("racy.jar");
    instrument(&dir, &jar, &for_racy, &analysis, racy);
    let ran = random_search(&dir, &for_racy, MAIN);
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.both().contains("lost update on the second counter"),
        "{}",
        ran.both()
    );
    // And the guarded counter's set in a jar stays clean too.
    let guarded_jar = dir.join("guarded.jar");
    instrument(&dir, &jar, &guarded_jar, &analysis, guarded);
    let ran = random_search(&dir, &guarded_jar, MAIN);
    assert_eq!(ran.code, 0, "{}", ran.both());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clone_of_a_tracked_object_stays_a_scheduling_point() {
    let dir = scratch("naming-clone");
    let (classes, analysis) = analyze(&dir, "ClonedCounter", "cloned.Main");
    let counter = alloc_variables(&analysis, "cloned/Main$Counter");
    assert_eq!(counter.len(), 1, "{counter:?}");
    // The copy has no allocation record; it is of the tracked type, so its accesses stay points.
    let instrumented = dir.join("counter");
    instrument(&dir, &classes, &instrumented, &analysis, &counter[0]);
    let ran = random_search(&dir, &instrumented, "cloned.Main");
    assert_eq!(ran.code, 1, "{}", ran.both());
    // And it counts as the original's variable, which a v-bounded strategy tracks.
    let manifest = root().join("tests/programs/ClonedCounter");
    let ran = rankcheck(
        &dir,
        &[
            "test",
            "--manifest",
            manifest.to_str().unwrap(),
            "--strategy",
            "rankchecker",
            "-c",
            "1",
            "-v",
            "1",
            "-t",
            "2",
            "--selective",
            "--budget",
            "2000",
            "-j",
            "1",
        ],
        LIMIT,
    );
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert!(
        ran.both().contains("lost update on the copy"),
        "{}",
        ran.both()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
