//! The controlled scheduler's acceptance check on a real JVM: each classic bug program of
//! `tests/programs/` is found by random walk (or, failing that, PCT) within 500 executions for at
//! least 19 of 20 seeds, and every find is a replayed bug (exit 1 of `rankcheck test`, which
//! replays a bug before reporting it).

mod cli_support;

use cli_support::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const SEEDS: u64 = 20;
const NEEDED: usize = 19;
const BUDGET: &str = "500";

/// The classic bugs, and whether the bug needs spurious wake-ups offered to the strategy.
const PROGRAMS: &[(&str, bool)] = &[
    ("LostUpdate", false),
    ("CheckThenAct", false),
    ("UseBeforeInit", false),
    ("TwoVarAtomicity", false),
    ("IfInsteadOfWhile", false),
    ("NotifyInsteadOfNotifyAll", false),
    ("LockOrderDeadlock", false),
    ("SpuriousWakeup", true),
];

/// How many of the seeds find the bug of `program` with `strategy`.
fn seeds_finding(program: &str, spurious: bool, strategy: &str) -> usize {
    let dir = scratch(&format!("seeds-{program}-{strategy}"));
    let manifest = root().join("tests/programs").join(program);
    let manifest = manifest.to_str().unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let mut found = 0;
    for seed in 0..SEEDS {
        let seed = seed.to_string();
        let mut args = vec![
            "test",
            "--manifest",
            manifest,
            "--strategy",
            strategy,
            "--budget",
            BUDGET,
            "--seed",
            &seed,
            "-j",
            "1",
            "--out",
            out,
            // Found and replayed is what is checked; the minimal schedule is cli_minimize's.
            "--no-minimize",
        ];
        if spurious {
            args.push("--spurious");
        }
        let ran = rankcheck(&dir, &args, LIMIT);
        match ran.code {
            1 => found += 1,
            0 => {}
            _ => panic!("{program} seed {seed}: {}", ran.both()),
        }
    }
    found
}

#[test]
fn random_walk_or_pct_finds_each_classic_bug_for_19_of_20_seeds() {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    // Two programs at a time: each search is one JVM on one core.
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(program, spurious)) = PROGRAMS.get(i) else {
                    break;
                };
                let random = seeds_finding(program, spurious, "random");
                let verdict = if random >= NEEDED {
                    format!("{program}: random {random}/{SEEDS}")
                } else {
                    let pct = seeds_finding(program, spurious, "pct");
                    let line = format!("{program}: random {random}/{SEEDS}, pct {pct}/{SEEDS}");
                    if pct < NEEDED {
                        failures.lock().unwrap().push(line.clone());
                    }
                    line
                };
                eprintln!("{verdict}");
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "found for fewer than {NEEDED} seeds: {failures:?}"
    );
}
