//! `--shard` and `rankcheck merge` end to end, on a real JVM: a search run as one shard and as
//! four (processes started with a Kubernetes Indexed Job's and a Slurm array's environment),
//! and an exhaustive search split by its frontier into three, merge into the same result — the same executions with the same happens-before graphs and
//! steps, the same first bug with the same schedule, the same coverage text — and a sweep in
//! four shards merges into the unsharded sweep's tables. Shards that do not belong together
//! are bad input.

mod cli_support;

use cli_support::*;
use serde_json::Value;
use std::path::Path;

/// A search whose first bug is found late (execution 715 of pct's seed 0 on Critical), so
/// that it is in the fourth of five chunks, while the other shards run on past it.
const SEARCH: &[&str] = &[
    "test",
    "--strategy",
    "pct",
    "--seed",
    "0",
    "--budget",
    "1000",
    "-j",
    "1",
    "--no-minimize",
];

fn search_args<'a>(manifest: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = SEARCH.to_vec();
    args.extend(["--manifest", manifest, "--out", out]);
    args.extend(extra);
    args
}

fn shard_file(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("rankcheck-shard.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `rankcheck merge DIRS --json` in `dir`: the merged object.
fn merge(dir: &Path, outs: &[&str], into: &str) -> (Ran, Value) {
    let mut args = vec!["merge", "--json", "--out", into];
    args.extend(outs);
    let ran = rankcheck(dir, &args, LIMIT);
    let json = serde_json::from_str(ran.stdout.trim())
        .unwrap_or_else(|e| panic!("merge: not one JSON object ({e}):\n{}", ran.both()));
    (ran, json)
}

/// Every counted execution of shards `outs`, as their shard files list them.
fn all_counted(dir: &Path, outs: &[&str]) -> Vec<Value> {
    outs.iter()
        .flat_map(|o| {
            shard_file(&dir.join(o))["body"]["counted"]
                .as_array()
                .unwrap()
                .clone()
        })
        .collect()
}

/// The counted executions of shards `outs`, up to and including `last`, by index.
fn counted(dir: &Path, outs: &[&str], last: u64) -> Vec<Value> {
    let mut all = all_counted(dir, outs);
    all.retain(|c| c["index"].as_u64().unwrap() <= last);
    all.sort_by_key(|c| c["index"].as_u64().unwrap());
    all
}

/// The environment variables one shard's process is started with.
type Env<'a> = Vec<(&'a str, &'a Path)>;

fn schedule_of(bug: &Value) -> String {
    let dir = Path::new(bug["report"].as_str().unwrap());
    std::fs::read_to_string(dir.join("schedule.txt")).unwrap()
}

#[test]
fn a_sampling_search_in_four_shards_is_the_search_in_one() {
    let dir = scratch("shard-search");
    let manifest = root().join("contest-bench/Critical");
    let manifest = manifest.to_str().unwrap();

    let plain = rankcheck(&dir, &search_args(manifest, "plain", &["--json"]), LIMIT);
    assert_eq!(plain.code, 1, "{}", plain.both());
    let plain: Value = serde_json::from_str(plain.stdout.trim()).unwrap();
    let one = rankcheck(
        &dir,
        &search_args(manifest, "one", &["--shard", "1/1"]),
        LIMIT,
    );
    assert_eq!(one.code, 1, "{}", one.both());
    let (_, whole) = merge(&dir, &["one"], "merged-one");

    let engines: [(&str, Vec<Env>); 2] = [
        (
            "kubernetes",
            ["0", "1", "2", "3"]
                .iter()
                .map(|i| vec![("JOB_COMPLETION_INDEX", Path::new(i))])
                .collect(),
        ),
        (
            "slurm",
            ["10", "11", "12", "13"]
                .iter()
                .map(|id| {
                    vec![
                        ("SLURM_ARRAY_TASK_ID", Path::new(id)),
                        ("SLURM_ARRAY_TASK_MIN", Path::new("10")),
                        ("SLURM_ARRAY_TASK_COUNT", Path::new("4")),
                    ]
                })
                .collect(),
        ),
    ];
    for (engine, envs) in &engines {
        let outs: Vec<String> = (1..=4).map(|i| format!("{engine}-{i}")).collect();
        for (env, out) in envs.iter().zip(&outs) {
            let extra: &[&str] = if *engine == "kubernetes" {
                &["--shard", "auto", "--shards", "4"]
            } else {
                &["--shard", "auto"]
            };
            let ran = rankcheck_env(&dir, &search_args(manifest, out, extra), env, LIMIT);
            assert!(
                ran.code == 0 || ran.code == 1,
                "{engine} {out}: {}",
                ran.both()
            );
        }
        let outs: Vec<&str> = outs.iter().map(String::as_str).collect();
        // Each shard did its own part: the shard index comes from the engine's variables.
        for (i, out) in outs.iter().enumerate() {
            assert_eq!(shard_file(&dir.join(out))["shard"]["index"], i as u64 + 1);
        }
        let (ran, merged) = merge(&dir, &outs, &format!("merged-{engine}"));
        assert_eq!(ran.code, 1, "{engine}: {}", ran.both());
        assert_eq!(merged["exit"], 1);
        for key in ["executions", "coverage", "strategy", "seed"] {
            assert_eq!(merged[key], whole[key], "{engine}: {key}");
            assert_eq!(
                merged[key], plain[key],
                "{engine}: {key} of the plain search"
            );
        }
        let (first, one_first) = (&merged["bugs"][0], &whole["bugs"][0]);
        assert_eq!(first["execution"], 715, "{engine}: {merged}");
        for key in ["execution", "kind", "message"] {
            assert_eq!(first[key], one_first[key], "{engine}: first bug's {key}");
            assert_eq!(first[key], plain["bugs"][0][key], "{engine}: plain {key}");
        }
        assert_eq!(
            schedule_of(first),
            schedule_of(one_first),
            "{engine}: the first bug's schedule"
        );
        // The same executions: index by index the same happens-before graph and steps.
        let last = first["execution"].as_u64().unwrap();
        assert_eq!(
            counted(&dir, &outs, last),
            counted(&dir, &["one"], last),
            "{engine}"
        );
        assert_eq!(counted(&dir, &outs, last).len() as u64, last + 1);
        let merged_file: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("merged-{engine}/result.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(merged_file["executions"], merged["executions"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The executions of partitioned shards `outs` in the unsharded order (by order key, the
/// first execution once), each without what is its shard's own (numbering, exhaustion).
fn in_order(dir: &Path, outs: &[&str]) -> Vec<Value> {
    let mut all = all_counted(dir, outs);
    all.sort_by_key(|c| {
        let key: Vec<u64> = serde_json::from_value(c["order"].clone()).unwrap();
        key
    });
    all.dedup_by(|a, b| a["order"] == b["order"]);
    for c in &mut all {
        // Each shard numbers its executions and says when its own part ended.
        let c = c.as_object_mut().unwrap();
        c.remove("index");
        c.remove("exhausted");
    }
    all
}

/// An exhaustive search (ICB and MCR without pruning, RankChecker's Algorithm 1) split over
/// four shards by its frontier or its variable sets: merged, it is the unsharded search — the
/// same executions in the same order, the same first bug with the same schedule, the same
/// coverage text, and for a clean program the same exhaustion claim.
#[test]
fn an_exhaustive_search_in_four_shards_is_the_search_in_one() {
    let dir = scratch("shard-exhaustive");
    let icb: &[&str] = &["--strategy", "icb", "-c", "1"];
    let mcr: &[&str] = &["--strategy", "mcr"];
    let algorithm1: &[&str] = &["--strategy", "rankchecker-exhaustive", "-c", "1", "-v", "2"];
    for (strategy, program, expect, claim) in [
        (icb, "CheckThenAct", 1, ""),
        (icb, "LostUpdateFixed", 0, "ICB explored every schedule"),
        (mcr, "SemaphorePermits", 1, ""),
        (
            mcr,
            "SemaphorePermitsFixed",
            0,
            "MCR explored every reads-from combination",
        ),
        (algorithm1, "TwoVarAtomicity", 1, ""),
        (
            algorithm1,
            "TwoVarAtomicityFixed",
            0,
            "RankChecker's Algorithm 1 finished every variable set",
        ),
    ] {
        let manifest = root().join("tests/programs").join(program);
        let manifest = manifest.to_str().unwrap();
        let args = |out: &'static str, extra: &[&'static str]| -> Vec<String> {
            let mut a: Vec<String> = ["test", "--manifest", manifest]
                .iter()
                .chain(strategy)
                .map(|s| s.to_string())
                .collect();
            a.extend(
                [
                    "--no-prune",
                    "--budget",
                    "2000",
                    "-j",
                    "1",
                    "--no-minimize",
                    "--out",
                    out,
                ]
                .iter()
                .map(|s| s.to_string()),
            );
            a.extend(extra.iter().map(|s| s.to_string()));
            a
        };
        let run = |out: &'static str, extra: &[&'static str], env: &Env| {
            let a = args(out, extra);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let ran = rankcheck_env(&dir, &a, env, LIMIT);
            assert_eq!(ran.code, expect, "{program} {out}: {}", ran.both());
            ran
        };
        let plain = run("plain", &["--json"], &Vec::new());
        let plain: Value = serde_json::from_str(plain.stdout.trim()).unwrap();
        run("one", &["--shard", "1/1"], &Vec::new());
        // Four shards: two started as a Kubernetes Indexed Job's completions 0 and 1, two as
        // tasks 7 and 8 of a Slurm array 5..8 (the engines' variables only say which part).
        let outs = ["k-1", "k-2", "s-3", "s-4"];
        for (i, out) in outs.iter().enumerate() {
            let (index, slurm_id) = (i.to_string(), (5 + i).to_string());
            let (env, extra): (Env, &[&str]) = if i < 2 {
                (
                    vec![("JOB_COMPLETION_INDEX", Path::new(&index))],
                    &["--shard", "auto", "--shards", "4"],
                )
            } else {
                (
                    vec![
                        ("SLURM_ARRAY_TASK_ID", Path::new(&slurm_id)),
                        ("SLURM_ARRAY_TASK_MIN", Path::new("5")),
                        ("SLURM_ARRAY_TASK_COUNT", Path::new("4")),
                    ],
                    &["--shard", "auto"],
                )
            };
            let a = args(out, extra);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let ran = rankcheck_env(&dir, &a, &env, LIMIT);
            assert!(
                ran.code == 0 || ran.code == 1,
                "{program} {out}: {}",
                ran.both()
            );
            // A shard that finished its part claims nothing for the parts it did not run.
            assert!(
                expect == 1 || ran.both().contains("part of the search only"),
                "{}",
                ran.both()
            );
        }
        let (ran, merged) = merge(&dir, &outs, &format!("merged-{program}"));
        assert_eq!(ran.code, expect, "{program}: {}", ran.both());
        for key in ["executions", "coverage", "strategy", "bug"] {
            assert_eq!(merged[key], plain[key], "{program}: {key}");
        }
        // Each shard ran a part; together, exactly the unsharded executions in its order.
        let sizes: Vec<usize> = outs
            .iter()
            .map(|o| {
                shard_file(&dir.join(o))["body"]["counted"]
                    .as_array()
                    .unwrap()
                    .len()
            })
            .collect();
        let executions = plain["executions"].as_u64().unwrap() as usize;
        // A clean search splits: no shard ran it all. (A buggy one's shards stop at their own
        // first bug, or run past the unsharded search's.)
        assert!(
            expect == 1 || sizes.iter().all(|&n| n < executions),
            "{program}: {sizes:?}"
        );
        let whole = in_order(&dir, &["one"]);
        let mut parts = in_order(&dir, &outs);
        if expect == 1 {
            // The unsharded search stops at its bug; the shards may have gone on past it.
            parts.truncate(executions);
        }
        assert_eq!(parts, whole, "{program}");
        assert_eq!(whole.len(), executions, "{program}");
        if expect == 1 {
            let (first, plain_first) = (&merged["bugs"][0], &plain["bugs"][0]);
            for key in ["execution", "kind", "message"] {
                assert_eq!(first[key], plain_first[key], "{program}: first bug's {key}");
            }
            assert_eq!(schedule_of(first), schedule_of(plain_first), "{program}");
        } else {
            assert!(
                merged["coverage"].as_str().unwrap().contains(claim),
                "{merged}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sweep_in_four_shards_merges_into_the_unsharded_tables() {
    let dir = scratch("shard-sweep");
    let suite = root().join("tests/programs");
    let sweep = |out: &str, extra: &[&str], env: &[(&str, &Path)]| {
        let mut args = vec![
            "sweep",
            suite.to_str().unwrap(),
            "--programs",
            "LostUpdate,LostUpdateFixed",
            "--strategies",
            "random,rankchecker",
            "--c",
            "0..1",
            "--seeds",
            "2",
            "--budget",
            "30",
            "-j",
            "1",
            "--out",
            out,
        ];
        args.extend(extra);
        let ran = rankcheck_env(&dir, &args, env, LIMIT);
        assert_eq!(ran.code, 0, "{out}: {}", ran.both());
    };
    sweep("whole", &[], &[]);
    let outs = ["s1", "s2", "s3", "s4"];
    for (i, out) in outs.iter().enumerate() {
        let id = (i + 1).to_string();
        let env = [
            ("SLURM_ARRAY_TASK_ID", Path::new(&id)),
            ("SLURM_ARRAY_TASK_MIN", Path::new("1")),
            ("SLURM_ARRAY_TASK_COUNT", Path::new("4")),
        ];
        sweep(out, &["--shard", "auto"], &env);
    }
    let mut args = vec!["merge", "--out", "merged"];
    args.extend(outs);
    let ran = rankcheck(&dir, &args, LIMIT);
    assert_eq!(ran.code, 0, "{}", ran.both());
    assert!(ran.stdout.contains("Table 1"), "{}", ran.both());
    let read = |d: &str, f: &str| std::fs::read_to_string(dir.join(d).join(f)).unwrap();
    for f in ["table1.md", "summary.md"] {
        assert_eq!(read("merged", f), read("whole", f), "{f}");
    }
    assert_eq!(
        without_seconds(&read("merged", "results.csv")),
        without_seconds(&read("whole", "results.csv"))
    );
    // Table 4's runs follow the rankchecker finds, in the same order.
    let csv = read("merged", "results.csv");
    assert!(csv.contains(",true,"), "a bug was found: {csv}");
    assert!(
        csv.lines()
            .any(|l| l.contains(",rankchecker,") && l.contains(",true,true,")),
        "a table-4 run: {csv}"
    );
    for f in [
        "schedules-to-bug.svg",
        "bugs-vs-executions.svg",
        "table4.md",
    ] {
        assert!(dir.join("merged").join(f).is_file(), "{f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_that_do_not_belong_together_and_bad_shards_are_usage_errors() {
    let dir = scratch("shard-usage");
    let program = root().join("tests/programs/LostUpdateFixed");
    let manifest = program.to_str().unwrap();
    let run = |out: &str, shard: &str, seed: &str| {
        let args = [
            "test",
            "--manifest",
            manifest,
            "--budget",
            "3",
            "-j",
            "1",
            "--seed",
            seed,
            "--out",
            out,
            "--shard",
            shard,
        ];
        let ran = rankcheck(&dir, &args, LIMIT);
        assert_eq!(ran.code, 0, "{}", ran.both());
    };
    run("a1", "1/3", "0");
    run("a2", "2/3", "0");
    run("b3", "3/3", "1");
    assert_usage_error(&dir, &["merge", "a1", "a2"], "shard 3/3 is missing");
    assert_usage_error(&dir, &["merge", "a1", "a2", "b3"], "seed: 0 against 1");
    assert_usage_error(&dir, &["merge", "a1", "a1", "a2"], "given twice");
    assert_usage_error(&dir, &["merge", "a1", "nowhere"], "no shard result");
    let test = |extra: &[&'static str]| -> Vec<&str> {
        let mut args = vec!["test", "--manifest", manifest, "--budget", "3"];
        args.extend(extra);
        args
    };
    assert_usage_error(&dir, &test(&["--shard", "5/4"]), "1 <= I <= N");
    assert_usage_error(&dir, &test(&["--shard", "auto"]), "neither");
    assert_usage_error(
        &dir,
        &test(&["--shard", "1/2", "--shards", "2"]),
        "--shards",
    );
    assert_usage_error(
        &dir,
        &test(&["--shard", "1/2", "--strategy", "scs"]),
        "cannot be spread over shards",
    );
    let no_count = rankcheck_env(
        &dir,
        &test(&["--shard", "auto"]),
        &[("JOB_COMPLETION_INDEX", Path::new("0"))],
        LIMIT,
    );
    assert_eq!(no_count.code, 2, "{}", no_count.both());
    assert!(no_count.stderr.contains("--shards"), "{}", no_count.both());
    let past = rankcheck_env(
        &dir,
        &test(&["--shard", "auto", "--shards", "2"]),
        &[("JOB_COMPLETION_INDEX", Path::new("2"))],
        LIMIT,
    );
    assert_eq!(past.code, 2, "{}", past.both());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn junit_tests_in_two_shards_merge_into_the_unsharded_verdicts() {
    let dir = scratch("shard-junit");
    let cp = cli_support::junit::jupiter_classpath(&dir);
    let junit = |out: &str, extra: &[&str]| -> Value {
        let mut args = vec![
            "junit",
            "--cp",
            &cp,
            "--select",
            "shop.CartTest",
            "-j",
            "1",
            "--no-minimize",
            // Each shard runs half the executions: pos finds the lost add in both halves.
            "--strategy",
            "pos",
            "--json",
            "--out",
            out,
        ];
        args.extend(extra);
        let ran = rankcheck(&dir, &args, LIMIT);
        assert_eq!(ran.code, 1, "{out}: {}", ran.both());
        serde_json::from_str(ran.stdout.trim()).unwrap()
    };
    let whole = junit("whole", &[]);
    junit("j1", &["--shard", "1/2"]);
    junit("j2", &["--shard", "2/2"]);
    let (ran, merged) = merge(&dir, &["j2", "j1"], "merged");
    assert_eq!(ran.code, 1, "{}", ran.both());
    for key in ["found", "clean", "inconclusive"] {
        assert_eq!(merged[key], whole[key], "{key}");
    }
    let tests = whole["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2);
    for (a, b) in tests.iter().zip(merged["tests"].as_array().unwrap()) {
        // The correct test's 300 executions are two chunks, one per shard.
        for key in [
            "test",
            "verdict",
            "executions",
            "execution",
            "kind",
            "coverage",
        ] {
            assert_eq!(a[key], b[key], "{}: {key}", a["test"]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The default `--jdk-collections` searches again with `all` when a clean search may have
/// skipped switches inside collections; no shard can decide that from its part. The merge of
/// the `on` shards says the second search is due and how to run it; the `all` shards then
/// merge into the unsharded second search's verdict (the same first bug, at the same
/// execution).
#[test]
fn shards_say_when_the_unsharded_search_would_search_again() {
    let dir = scratch("shard-escalation");
    let manifest = root().join("tests/programs/IterateWhileAdding");
    let manifest = manifest.to_str().unwrap();
    let search = |out: &str, extra: &[&str]| -> Ran {
        let mut args = vec![
            "test",
            "--manifest",
            manifest,
            "--budget",
            "400",
            "--seed",
            "1",
            "-j",
            "1",
            "--no-minimize",
            "--out",
            out,
        ];
        args.extend(extra);
        rankcheck(&dir, &args, LIMIT)
    };
    let whole = search("whole", &["--json"]);
    assert_eq!(whole.code, 1, "{}", whole.both());
    let whole: Value = serde_json::from_str(whole.stdout.trim()).unwrap();
    assert!(whole["escalated_from"].is_object(), "{whole}");

    for i in 1..=2 {
        let ran = search(&format!("on-{i}"), &["--shard", &format!("{i}/2")]);
        assert_eq!(ran.code, 0, "{}", ran.both());
    }
    let (ran, on) = merge(&dir, &["on-1", "on-2"], "merged-on");
    assert_eq!(ran.code, 0, "{}", ran.both());
    let due = on["escalation_due"]
        .as_str()
        .unwrap_or_else(|| panic!("{on}"));
    assert!(due.contains("--jdk-collections all"), "{due}");
    assert!(
        ran.stderr.contains("would now search again"),
        "{}",
        ran.both()
    );

    for i in 1..=2 {
        search(
            &format!("all-{i}"),
            &["--shard", &format!("{i}/2"), "--jdk-collections", "all"],
        );
    }
    let (ran, all) = merge(&dir, &["all-1", "all-2"], "merged-all");
    assert_eq!(ran.code, 1, "{}", ran.both());
    assert_eq!(all["escalation_due"], Value::Null, "{all}");
    for key in ["execution", "kind", "message"] {
        assert_eq!(all["bugs"][0][key], whole["bugs"][0][key], "{key}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
