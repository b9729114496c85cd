//! The ranked search on a real JVM (issue 4): every strategy finds every classic bug program of
//! `tests/programs/`, and the RankChecker paper's examples are found at the (c, v, t) their
//! manifests give — by exhaustive RankChecker, which also exhausts c − 1 without a report.

mod cli_support;

use cli_support::*;
use rankcheck::suite::Program;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const STRATEGIES: &[&str] = &[
    "random",
    "pct",
    "pctvb",
    "rankchecker",
    "icb",
    "pos",
    "pos-star",
    "scs",
];

const CLASSIC: &[&str] = &[
    "LostUpdate",
    "CheckThenAct",
    "UseBeforeInit",
    "TwoVarAtomicity",
    "IfInsteadOfWhile",
    "NotifyInsteadOfNotifyAll",
    "LockOrderDeadlock",
    "SpuriousWakeup",
];

/// The manifest's expected bounds `(c, v, t)` of a buggy program.
fn expected(program: &str) -> (u32, u32, u32) {
    let p = Program::load(&root().join("tests/programs").join(program)).unwrap();
    let e = p
        .manifest
        .expected
        .as_ref()
        .unwrap_or_else(|| panic!("{program} has no [expected]"));
    let bound = |b: Option<u32>| b.unwrap_or_else(|| panic!("{program}: incomplete [expected]"));
    (bound(e.c), bound(e.v), bound(e.t))
}

/// Runs `rankcheck test` on a test program and returns its exit code and output.
fn search(program: &str, strategy: &str, bounds: (u32, u32, u32), budget: u32) -> Ran {
    search_seeded(program, strategy, bounds, budget, 0)
}

fn search_seeded(
    program: &str,
    strategy: &str,
    bounds: (u32, u32, u32),
    budget: u32,
    seed: u64,
) -> Ran {
    let dir = scratch(&format!("strat-{program}-{strategy}-{}", bounds.0));
    let seed = seed.to_string();
    let manifest = root().join("tests/programs").join(program);
    let (c, v, t) = (
        bounds.0.to_string(),
        bounds.1.to_string(),
        bounds.2.to_string(),
    );
    let budget = budget.to_string();
    let mut args = vec![
        "test",
        "--manifest",
        manifest.to_str().unwrap(),
        "--strategy",
        strategy,
        "-c",
        &c,
        "-v",
        &v,
        "-t",
        &t,
        "-d",
        "3",
        "--budget",
        &budget,
        "-j",
        "1",
        "--seed",
        &seed,
    ];
    if program == "SpuriousWakeup" {
        args.push("--spurious");
    }
    rankcheck(&dir, &args, LIMIT)
}

/// Runs `job` over `items` on two threads (each search is one JVM on one core) and fails with
/// every line `job` returned as an error.
fn on_two_threads<T: Sync>(items: &[T], job: impl Fn(&T) -> Result<(), String> + Sync) {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::SeqCst)) {
                    if let Err(line) = job(item) {
                        failures.lock().unwrap().push(line);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_strategy_finds_every_classic_bug() {
    let cases: Vec<(&str, &str)> = CLASSIC
        .iter()
        .flat_map(|p| STRATEGIES.iter().map(move |s| (*p, *s)))
        .collect();
    on_two_threads(&cases, |&(program, strategy)| {
        let (mut c, v, t) = expected(program);
        // ICB counts every switch away from an enabled thread (CHESS), also the switch to a
        // thread that has just become enabled, which RankChecker counting (the manifests') does
        // not: such bugs need one more preemption under ICB.
        if strategy == "icb" {
            c = c.max(1);
        }
        // v = 0 means no data variable is needed; a v-bounded strategy still takes v >= 1.
        let ran = search(program, strategy, (c, v.max(1), t), 2000);
        match ran.code {
            1 => Ok(()),
            code => Err(format!(
                "{program} / {strategy}: exit {code}\n{}",
                ran.both()
            )),
        }
    });
}

#[test]
fn paper_examples_are_found_at_their_bounds_and_not_below() {
    const EXHAUSTIVE: &[&str] = &[
        "PaperFig1",
        "PaperFig2",
        "PaperFig3",
        "PaperFig4",
        "PaperFig8",
        "PaperFig9",
    ];
    on_two_threads(EXHAUSTIVE, |&program| {
        let (c, v, t) = expected(program);
        let at = search(program, "rankchecker-exhaustive", (c, v.max(1), t), 40_000);
        if at.code != 1 {
            return Err(format!(
                "{program}: not found at c={c} v={v} t={t}\n{}",
                at.both()
            ));
        }
        if c > 0 {
            let below = search(
                program,
                "rankchecker-exhaustive",
                (c - 1, v.max(1), t),
                40_000,
            );
            if below.code != 0 || !below.stdout.contains("coverage") {
                return Err(format!(
                    "{program}: c={} is not exhausted clean\n{}",
                    c - 1,
                    below.both()
                ));
            }
        }
        Ok(())
    });
}

#[test]
fn paper_figure_10_is_found_by_randomized_rankchecker_at_its_bounds() {
    // Exhaustive search at (2, 2, 3) does not finish within a test's budget on the JVM (it
    // enumerates change points over every pair of the 7 variables); the randomized search finds
    // it, with a probability per execution near 1/15,000: measured at seeds 0 / 1 / 2, not
    // within 40,000 / 9,211 / 37,009 executions. Seed 1 keeps the test within CI time; the
    // search is deterministic for a seed.
    let (c, v, t) = expected("PaperFig10");
    let ran = search_seeded("PaperFig10", "rankchecker", (c, v, t), 40_000, 1);
    assert_eq!(ran.code, 1, "{}", ran.both());
}

/// Runs `rankcheck test --json` on a contest-bench program with `extra` flags.
fn contest(program: &str, tag: &str, extra: &[&str]) -> (Ran, serde_json::Value) {
    let dir = scratch(&format!("strat-{program}-{tag}"));
    let manifest = root().join("contest-bench").join(program);
    let mut args = vec!["--no-minimize", "--budget", "300"];
    args.extend(extra);
    test_manifest(&dir, &manifest, &args)
}

#[test]
fn the_portfolio_names_the_member_that_found_the_bug_and_its_report_replays() {
    // Seed 1 on BubbleSort: execution 6 fails, run by member 6 mod 5 = 1 (pos) as its own
    // execution 1. Over two JVMs, as in one.
    let (ran, json) = contest(
        "BubbleSort",
        "portfolio",
        &["--strategy", "portfolio", "--seed", "1", "-j", "2"],
    );
    assert_eq!(ran.code, 1, "{}\n{}", ran.both(), troubles(&json));
    let execution = json["bugs"][0]["execution"].as_u64().unwrap();
    let member = scheduler::strategy::portfolio::member_of(execution);
    assert_eq!(json["member"], member, "{json}");
    assert_eq!(json["bugs"][0]["member"], member);
    assert!(
        ran.stderr
            .contains(&format!("found by {member}, the portfolio member")),
        "{}",
        ran.stderr
    );
    let report = json["report"].as_str().unwrap();
    let run: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(std::path::Path::new(report).join("run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(run["member"], member);
    assert_report_replays(&scratch("strat-portfolio-replay"), &json, "portfolio");
    // The member alone, with the same seed, first fails at its own execution k / 5: the
    // portfolio ran that member's executions in turn, not schedules of its own.
    let (alone, alone_json) = contest(
        "BubbleSort",
        &format!("portfolio-{member}"),
        &["--strategy", member, "--seed", "1", "-j", "1"],
    );
    assert_eq!(alone.code, 1, "{}", alone.both());
    let members = scheduler::strategy::portfolio::MEMBERS.len() as u64;
    assert_eq!(alone_json["bugs"][0]["execution"], execution / members);
    assert!(alone_json["member"].is_null());
}

/// The default strategy finds a bug that needs one thread to run a long stretch before the
/// other interferes (the owner's whole pop, then a steal inside its next check), which a walk
/// sampling interleavings uniformly (surw alone, before its selection left out lock-guarded
/// locations) missed in 2,000 executions; the fixed deque gets no report.
#[test]
fn the_default_strategy_finds_a_bug_after_a_long_stretch_of_one_thread() {
    for seed in ["1", "2", "3"] {
        let dir = scratch(&format!("strat-default-deque-{seed}"));
        let manifest = root().join("tests/programs/WorkStealingDeque");
        let (ran, json) = test_manifest(
            &dir,
            &manifest,
            &[
                "--budget",
                "300",
                "--seed",
                seed,
                "-j",
                "1",
                "--no-minimize",
            ],
        );
        assert_eq!(
            ran.code,
            1,
            "seed {seed}: {}\n{}",
            ran.both(),
            troubles(&json)
        );
        assert!(
            json["bugs"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains("task ran twice")),
            "{json}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    let dir = scratch("strat-default-deque-fixed");
    let manifest = root().join("tests/programs/WorkStealingDequeFixed");
    let (ran, json) = test_manifest(&dir, &manifest, &["--budget", "500", "-j", "2"]);
    assert_eq!(ran.code, 0, "{}\n{}", ran.both(), troubles(&json));
    let _ = std::fs::remove_dir_all(&dir);
}
