//! ICB against brute force, happens-before pruning against brute force, and the ICB frontier's
//! text form.

mod strategies_common;

use scheduler::sim::{self, programs, Outcome, Program};
use scheduler::strategy::icb::Icb;
use scheduler::strategy::partition::Partition;
use scheduler::strategy::Dfs;
use scheduler::{Config, Execution};
use std::collections::{BTreeMap, BTreeSet};
use strategies_common::*;

fn config() -> Config {
    Config {
        max_steps: 2_000,
        ..Config::default()
    }
}

/// Every schedule of `program` (brute force) with its preemption count.
fn brute_force(program: &Program) -> Vec<Run> {
    let (runs, _, exhausted) = run_all(program, config(), Dfs::new(), 1_000_000);
    assert!(exhausted, "{}: brute force did not finish", program.name);
    runs
}

fn small_programs() -> Vec<Program> {
    let paper = paper_programs();
    vec![
        programs::lost_update(false),
        programs::atomicity_violation(false),
        programs::notify_instead_of_notify_all(false),
        programs::lock_order_deadlock(false),
        mixed_counter(),
        paper[2].program.clone(), // Fig. 3
        paper[1].program.clone(), // Fig. 2
    ]
}

#[test]
fn icb_runs_exactly_the_schedules_within_the_bound_each_once() {
    for program in small_programs() {
        let all = brute_force(&program);
        for c in 0..=2 {
            let expected: BTreeSet<&str> = all
                .iter()
                .filter(|r| r.preemptions <= c)
                .map(|r| r.schedule.as_str())
                .collect();
            let (runs, icb, exhausted) = run_all(&program, config(), Icb::new(c, false), 1_000_000);
            assert!(
                exhausted && icb.exhausted(),
                "{} c={c}: not exhausted",
                program.name
            );
            let got: BTreeSet<&str> = runs.iter().map(|r| r.schedule.as_str()).collect();
            assert_eq!(
                got.len(),
                runs.len(),
                "{} c={c}: a schedule ran twice",
                program.name
            );
            assert_eq!(got, expected, "{} c={c}", program.name);
            // Iterative: every schedule with fewer preemptions first.
            assert!(
                runs.windows(2)
                    .all(|w| w[0].preemptions <= w[1].preemptions),
                "{} c={c}: bounds out of order",
                program.name
            );
            assert!(runs.iter().all(|r| r.preemptions <= c));
            assert!(icb.coverage().contains(&format!("<= {c} preemptions")));
            eprintln!(
                "{} c={c}: {} of {} schedules, each once",
                program.name,
                runs.len(),
                all.len()
            );
        }
    }
}

/// Final states of the executions that ran to their end (pruning ends duplicates early).
fn final_states(runs: &[Run]) -> BTreeSet<String> {
    runs.iter()
        .filter(|r| !matches!(r.outcome, Outcome::Stopped(_)))
        .map(|r| format!("{:?}", r.outcome))
        .collect()
}

#[test]
fn hb_pruning_keeps_every_final_state_and_cuts_executions() {
    let cases: Vec<(Program, f64)> = vec![
        // (program with a final-state probe, smallest reduction factor expected at c = 2)
        (
            with_final_state(&independent_writers(3, 2), &[0, 1, 2], 3),
            5.0,
        ),
        (with_final_state(&mixed_counter(), &[0, 1, 2], 3), 1.5),
        (
            with_final_state(&programs::lost_update(false), &[0], 3),
            1.0,
        ),
        // Thread queries: their answers, not only their order, tell states apart.
        (with_final_state(&state_watcher(), &[1, 2], 6), 1.0),
    ];
    for (program, min_factor) in cases {
        let all = brute_force(&program);
        for c in 0..=2 {
            let within: Vec<Run> = all.iter().filter(|r| r.preemptions <= c).cloned().collect();
            let (full, _, _) = run_all(&program, config(), Icb::new(c, false), 1_000_000);
            let (pruned, icb, exhausted) =
                run_all(&program, config(), Icb::new(c, true), 1_000_000);
            assert!(exhausted);
            assert_eq!(
                final_states(&pruned),
                final_states(&within),
                "{} c={c}: pruning lost a final state",
                program.name
            );
            assert_eq!(final_states(&full), final_states(&within));
            let factor = full.len() as f64 / pruned.len() as f64;
            eprintln!(
                "HB pruning {} c={c}: {} -> {} executions (factor {factor:.1}; {} of them ended early as duplicates), {} final states, {} distinct HB graphs",
                program.name,
                full.len(),
                pruned.len(),
                icb.pruned_executions(),
                final_states(&within).len(),
                icb.distinct_graphs()
            );
            if c == 2 {
                assert!(
                    factor >= min_factor,
                    "{}: reduction factor {factor:.2} < {min_factor}",
                    program.name
                );
            }
        }
    }
}

#[test]
fn every_bug_program_is_found_by_icb() {
    for case in programs::all().into_iter().filter(|c| !c.needs_spurious) {
        let (runs, _, _) = run_all(&case.buggy, config(), Icb::new(3, true), 100_000);
        let at = first_bug(&runs);
        assert!(at.is_some(), "{}: ICB missed the bug", case.name);
        eprintln!("ICB finds {} at execution {}", case.name, at.unwrap() + 1);
    }
}

#[test]
fn the_frontier_survives_a_restart() {
    let program = mixed_counter();
    for prune in [false, true] {
        let (straight, _, _) = run_all(&program, config(), Icb::new(2, prune), 1_000_000);
        // Run 7 executions, save the frontier as text, restore it, run the rest.
        let (first, icb, _) = run_all(&program, config(), Icb::new(2, prune), 7);
        let text = icb.to_text();
        let restored = Icb::from_text(&text).expect("frontier parses");
        assert_eq!(restored.to_text(), text, "text round trip");
        let (rest, _, exhausted) = run_all(&program, config(), restored, 1_000_000);
        assert!(exhausted);
        let resumed: Vec<&str> = first
            .iter()
            .chain(&rest)
            .map(|r| r.schedule.as_str())
            .collect();
        let expected: Vec<&str> = straight.iter().map(|r| r.schedule.as_str()).collect();
        assert_eq!(resumed, expected, "prune={prune}");
    }
    assert!(Icb::from_text("").is_err());
    assert!(Icb::from_text("rankcheck-icb-frontier 9\n").is_err());
    let err = Icb::from_text("rankcheck-icb-frontier 2\nmax 2 bound 0 prune 0 exhausted 0 executions 0 divergences 0\nactive 0 t0 q7\n")
        .unwrap_err();
    assert_eq!(err.line, 3, "{err}");
    for garbage in [
        "active",
        "active x",
        "active 0 é",
        "active 0 t",
        "active 0 t1*0",
        "graph zz",
        "é",
    ] {
        let text = format!(
            "rankcheck-icb-frontier 2\nmax 2 bound 0 prune 0 exhausted 0 executions 0 divergences 0\n{garbage}\n"
        );
        assert!(Icb::from_text(&text).is_err(), "{garbage}");
    }
}

#[test]
fn coverage_claims_the_bound_only_when_exhausted() {
    let program = mixed_counter();
    let (_, icb, exhausted) = run_all(&program, config(), Icb::new(2, false), 3);
    assert!(!exhausted && !icb.exhausted());
    assert!(
        icb.coverage().contains("not exhausted"),
        "{}",
        icb.coverage()
    );
    let (_, icb, _) = run_all(&program, config(), Icb::new(1, false), 1_000_000);
    assert!(icb.exhausted());
    assert!(
        icb.coverage()
            .starts_with("every schedule with <= 1 preemptions"),
        "{}",
        icb.coverage()
    );
}

#[test]
fn preemption_counts_by_bound_match_brute_force() {
    // The number of schedules per exact preemption count, as a histogram, for one program.
    let program = programs::atomicity_violation(false);
    let all = brute_force(&program);
    let mut histogram = BTreeMap::new();
    for r in &all {
        *histogram.entry(r.preemptions).or_insert(0u64) += 1;
    }
    let (runs, _, _) = run_all(&program, config(), Icb::new(2, false), 1_000_000);
    let mut icb_histogram = BTreeMap::new();
    for r in &runs {
        *icb_histogram.entry(r.preemptions).or_insert(0u64) += 1;
    }
    for c in 0..=2 {
        assert_eq!(histogram.get(&c), icb_histogram.get(&c), "c={c}");
    }
}

#[test]
fn a_yielding_spin_loop_ends_at_every_bound() {
    // T1: while (flag == 0) yield;  T2: flag = 1.
    use scheduler::sim::{Cmp, Ins, Val};
    let program = Program {
        name: "yield-spin",
        vars: vec![0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            vec![
                Ins::Read { var: 0, reg: 0 },
                Ins::Yield,
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Eq,
                    val: Val::Const(0),
                    to: 0,
                },
            ],
            vec![Ins::Write {
                var: 0,
                val: Val::Const(1),
            }],
        ],
    };
    for c in 0..=1 {
        let (runs, icb, exhausted) = run_all(&program, config(), Icb::new(c, false), 10_000);
        assert!(exhausted, "c={c}: {}", icb.coverage());
        assert!(
            runs.iter().all(|r| !r.outcome.is_bug()),
            "c={c}: a spin loop did not end"
        );
    }
}

#[test]
fn hb_pruning_keeps_every_outcome_of_the_bug_programs() {
    // Monitors, wait/notify (including the choice of waiter) and joins under pruning.
    for case in programs::all().into_iter().filter(|c| !c.needs_spurious) {
        for program in [&case.buggy, &case.fixed] {
            let (full, _, _) = run_all(program, config(), Icb::new(2, false), 1_000_000);
            let (pruned, icb, _) = run_all(program, config(), Icb::new(2, true), 1_000_000);
            assert_eq!(
                final_states(&pruned),
                final_states(&full),
                "{}: pruning lost an outcome",
                program.name
            );
            eprintln!(
                "HB pruning {} c=2: {} -> {} executions ({} ended early), outcomes {:?}",
                program.name,
                full.len(),
                pruned.len(),
                icb.pruned_executions(),
                final_states(&full).len()
            );
        }
    }
}

/// Runs ICB restricted to `partition` to its end: `(order key, schedule, outcome)` per
/// execution, in the order it ran them.
fn run_part(
    program: &Program,
    c: u32,
    prune: bool,
    partition: Option<Partition>,
) -> Vec<(Vec<u64>, String, Outcome)> {
    let mut exec = Execution::new(config(), Icb::new(c, prune).with_partition(partition));
    let mut out = Vec::new();
    loop {
        let outcome = sim::run_execution(&mut exec, program).expect("simulation");
        let more = exec.finish(outcome.is_bug()).expect("finish");
        let key = exec
            .strategy()
            .last_order_key()
            .unwrap_or_default()
            .to_vec();
        out.push((key, exec.schedule().to_text(), outcome));
        if !more {
            assert!(exec.strategy().exhausted());
            return out;
        }
        exec.restart().expect("restart");
    }
}

/// The parts' executions put back together as a merge of shards does.
fn merged(parts: Vec<Vec<(Vec<u64>, String, Outcome)>>) -> Vec<(Vec<u64>, String, Outcome)> {
    merged_by_key(parts, |r| &r.0)
}

fn parts(n: u32) -> impl Iterator<Item = Partition> {
    (1..=n).map(move |i| Partition::parse(&format!("{i}/{n}")).unwrap())
}

#[test]
fn partitions_without_pruning_run_exactly_the_whole_searchs_schedules_in_its_order() {
    for program in small_programs() {
        for c in 0..=2 {
            let (whole, _, _) = run_all(&program, config(), Icb::new(c, false), 1_000_000);
            let whole: Vec<&str> = whole.iter().map(|r| r.schedule.as_str()).collect();
            let one = run_part(&program, c, false, Partition::parse("1/1").ok());
            let keys: Vec<&Vec<u64>> = one.iter().map(|r| &r.0).collect();
            assert!(
                keys.windows(2).all(|w| w[0] < w[1]),
                "{} c={c}: the order keys do not sort as the search ran",
                program.name
            );
            let one: Vec<&str> = one.iter().map(|r| r.1.as_str()).collect();
            assert_eq!(
                one, whole,
                "{} c={c}: 1/1 is the whole search",
                program.name
            );
            for n in 2..=4 {
                let runs: Vec<_> = parts(n)
                    .map(|p| run_part(&program, c, false, Some(p)))
                    .collect();
                let sizes: Vec<usize> = runs.iter().map(Vec::len).collect();
                let back = merged(runs);
                let back: Vec<&str> = back.iter().map(|r| r.1.as_str()).collect();
                assert_eq!(back, whole, "{} c={c} in {n} parts {sizes:?}", program.name);
            }
        }
    }
}

#[test]
fn partitions_with_pruning_keep_every_final_state() {
    let cases = [
        with_final_state(&mixed_counter(), &[0, 1, 2], 3),
        with_final_state(&programs::lost_update(false), &[0], 3),
        with_final_state(&state_watcher(), &[1, 2], 6),
    ];
    for program in cases {
        let (whole, _, _) = run_all(&program, config(), Icb::new(2, true), 1_000_000);
        for n in 2..=3 {
            let runs: Vec<_> = parts(n)
                .map(|p| run_part(&program, 2, true, Some(p)))
                .collect();
            let back: Vec<Run> = merged(runs)
                .into_iter()
                .map(|(_, schedule, outcome)| Run {
                    schedule,
                    preemptions: 0,
                    outcome,
                })
                .collect();
            assert_eq!(
                final_states(&back),
                final_states(&whole),
                "{} in {n} parts",
                program.name
            );
        }
    }
}

#[test]
fn a_partitioned_frontier_survives_a_restart() {
    let program = mixed_counter();
    let part = Partition::parse("2/3").ok();
    let straight = run_part(&program, 2, false, part);
    let mut exec = Execution::new(config(), Icb::new(2, false).with_partition(part));
    for _ in 0..3 {
        let outcome = sim::run_execution(&mut exec, &program).unwrap();
        exec.finish(outcome.is_bug()).unwrap();
        exec.restart().unwrap();
    }
    let text = exec.strategy().to_text();
    assert!(
        text.contains("partition 2 3") && text.contains(" cell="),
        "{text}"
    );
    let restored = Icb::from_text(&text).expect("frontier parses");
    assert_eq!(restored.to_text(), text, "text round trip");
    let mut exec = Execution::new(config(), restored);
    let mut rest = Vec::new();
    loop {
        let outcome = sim::run_execution(&mut exec, &program).unwrap();
        let more = exec.finish(outcome.is_bug()).unwrap();
        rest.push(exec.schedule().to_text());
        if !more {
            break;
        }
        exec.restart().unwrap();
    }
    let expected: Vec<&str> = straight[3..].iter().map(|r| r.1.as_str()).collect();
    assert_eq!(rest, expected);
}
