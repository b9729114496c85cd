//! RankChecker on the programs of its paper: each bug is found first at the bounds the paper
//! gives it, by the exhaustive search (Algorithm 1) and by the randomized one; plus the yield
//! rule, the CHESS c-mode and the thread-bounding permutation.

mod strategies_common;

use scheduler::sim::{self, Cmp, Ins, Program, Val};
use scheduler::strategy::partition::Partition;
use scheduler::strategy::pctvb::{VarProfile, Variable};
use scheduler::strategy::rankchecker::{
    CMode, FragmentPermutation, RankChecker, RankCheckerConfig, RankCheckerExhaustive,
};
use scheduler::{Config, Execution, SeededRandom, VarId};
use strategies_common::*;

fn config(c: u32, v: u32, t: u32) -> RankCheckerConfig {
    RankCheckerConfig {
        c,
        v,
        t,
        seed: 3,
        ..RankCheckerConfig::default()
    }
}

/// The program's variables as a supplied profile (no preparatory runs), all shared.
fn profile(program: &Program) -> VarProfile {
    let vars: Vec<Variable> = (0..program.vars.len() as u32)
        .map(|v| Variable::Field(VarId(v)))
        .collect();
    VarProfile::supplied(vars.iter().map(|&v| (v, 4)), vars.clone())
}

/// Runs the exhaustive search to its end or its first bug: `Some((v, c, permutation index,
/// executions))` where the bug was found, or `None` when the search exhausted without one.
fn exhaustive(program: &Program, c: u32, v: u32, t: u32) -> Option<(u32, u32, u64, u64)> {
    exhaustive_pruning(program, c, v, t, true)
}

fn exhaustive_pruning(
    program: &Program,
    c: u32,
    v: u32,
    t: u32,
    prune: bool,
) -> Option<(u32, u32, u64, u64)> {
    let mut exec = Execution::new(
        Config {
            max_steps: 5_000,
            ..Config::default()
        },
        RankCheckerExhaustive::with_profile(
            RankCheckerConfig {
                threads: program.bodies.len() as u32,
                prune,
                ..config(c, v, t)
            },
            profile(program),
        ),
    );
    let mut executions = 0;
    loop {
        let outcome = sim::run_execution(&mut exec, program).unwrap();
        executions += 1;
        if outcome.is_bug() {
            let (v, _, c, perm) = exec.strategy().position();
            return Some((v, c, perm, executions));
        }
        if !exec.finish(false).unwrap() {
            assert!(exec.strategy().exhausted());
            return None;
        }
        assert!(executions < 200_000, "{}: search too long", program.name);
        exec.restart().unwrap();
    }
}

#[test]
fn exhaustive_search_finds_each_paper_bug_first_at_its_bounds() {
    for p in paper_programs() {
        let found = exhaustive(&p.program, p.c, p.v, p.t);
        let (v, c, perm, executions) = found
            .unwrap_or_else(|| panic!("Fig. {}: not found at {:?}", p.figure, (p.c, p.v, p.t)));
        eprintln!(
            "Fig. {:>2}: found at v = {v}, c = {c} (paper: c = {}, v = {}, t = {}), permutation {} , execution {executions}",
            p.figure, p.c, p.v, p.t, perm + 1
        );
        assert_eq!(
            (c, v),
            (p.c, p.v),
            "Fig. {}: found at other bounds",
            p.figure
        );
        if p.c > 0 {
            assert_eq!(
                exhaustive(&p.program, p.c - 1, p.v, p.t),
                None,
                "Fig. {}: found with c = {}",
                p.figure,
                p.c - 1
            );
        }
        if p.v > 1 {
            assert_eq!(
                exhaustive(&p.program, p.c, p.v - 1, p.t),
                None,
                "Fig. {}: found with v = {}",
                p.figure,
                p.v - 1
            );
        }
    }
}

#[test]
fn exhaustive_pruning_keeps_every_final_state() {
    // Same seeds, same permutations: pruning may only drop executions whose final state a kept
    // execution reaches.
    let paper = paper_programs();
    let cases = [
        (with_final_state(&mixed_counter(), &[0, 1, 2], 3), 2, 1),
        (with_final_state(&paper[3].program, &[0, 1], 2), 2, 2),
        (
            with_final_state(&independent_writers(3, 2), &[0, 1, 2], 3),
            2,
            1,
        ),
    ];
    for (program, c, v) in cases {
        let states = |prune: bool| {
            let cfg = RankCheckerConfig {
                threads: program.bodies.len() as u32,
                prune,
                ..config(c, v, 2)
            };
            let (runs, s, exhausted) = run_all(
                &program,
                Config::default(),
                RankCheckerExhaustive::with_profile(cfg, profile(&program)),
                1_000_000,
            );
            assert!(exhausted);
            let states: std::collections::BTreeSet<String> = runs
                .iter()
                .filter(|r| !matches!(r.outcome, sim::Outcome::Stopped(_)))
                .map(|r| format!("{:?}", r.outcome))
                .collect();
            (states, runs.len(), s.pruned())
        };
        let (full, n_full, _) = states(false);
        let (pruned, n_pruned, cut) = states(true);
        assert_eq!(full, pruned, "{}: pruning lost a final state", program.name);
        eprintln!(
            "exhaustive RankChecker {} (c={c}, v<={v}): {n_full} -> {n_pruned} executions (factor {:.1}; {cut} placements pruned), {} final states",
            program.name,
            n_full as f64 / n_pruned as f64,
            full.len()
        );
        assert!(n_pruned < n_full);
    }
}

#[test]
fn randomized_search_finds_each_paper_bug_at_its_bounds() {
    for p in paper_programs() {
        let (at, strategy) = until_bug(
            &p.program,
            Config::default(),
            RankChecker::new(config(p.c, p.v, p.t)),
            20_000,
        );
        eprintln!(
            "Fig. {:>2}: randomized RankChecker (c={}, v={}, t={}) finds it at execution {:?}; {}",
            p.figure,
            p.c,
            p.v,
            p.t,
            at.map(|i| i + 1),
            strategy.coverage()
        );
        assert!(at.is_some(), "Fig. {} missed", p.figure);
    }
}

/// `T1: while (flag == 0) { yield or re-read }; T2: flag = 1` under strict priority.
fn spin_program(with_yield: bool) -> Program {
    let mut spinner = vec![Ins::Read { var: 0, reg: 0 }];
    if with_yield {
        spinner.push(Ins::Yield);
    }
    spinner.push(Ins::JumpIf {
        reg: 0,
        cmp: Cmp::Eq,
        val: Val::Const(0),
        to: 0,
    });
    Program {
        name: "spin",
        vars: vec![0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            spinner,
            vec![Ins::Write {
                var: 0,
                val: Val::Const(1),
            }],
        ],
    }
}

#[test]
fn the_yield_rule_ends_spin_loops_under_strict_priority() {
    for with_yield in [true, false] {
        let program = spin_program(with_yield);
        let (runs, _, _) = run_all(
            &program,
            Config {
                max_steps: 20_000,
                ..Config::default()
            },
            RankChecker::new(config(1, 1, 2)),
            60,
        );
        for r in &runs {
            assert!(
                !r.outcome.is_bug(),
                "spin (yield {with_yield}) did not end: {:?}",
                r.outcome
            );
        }
    }
}

#[test]
fn chess_c_mode_caps_every_preemption() {
    for p in paper_programs() {
        let cfg = RankCheckerConfig {
            c_mode: CMode::Chess,
            ..config(0, 1, 2)
        };
        let (runs, _, _) = run_all(&p.program, Config::default(), RankChecker::new(cfg), 40);
        assert!(runs.iter().all(|r| r.preemptions == 0), "Fig. {}", p.figure);
        // RankChecker mode lets a higher-priority thread take over for free.
        let (runs, _, _) = run_all(
            &p.program,
            Config::default(),
            RankChecker::new(config(0, 1, 2)),
            40,
        );
        assert!(runs.iter().any(|r| r.preemptions > 0), "Fig. {}", p.figure);
    }
}

#[test]
fn fragment_permutations_are_permutations_of_n_plus_c() {
    let mut rng = SeededRandom::new(9);
    let mut first_place = [0u32; 5];
    for _ in 0..5_000 {
        let p = FragmentPermutation::draw(3, 2, &mut rng);
        let mut sorted = p.values().to_vec();
        sorted.sort();
        assert_eq!(sorted, [1, 2, 3, 4, 5]);
        assert_eq!(p.thread_priority(0), Some(p.values()[0]));
        assert_eq!(p.thread_priority(3), None);
        assert_eq!(p.change_priority(1), Some(p.values()[3]));
        assert_eq!(p.change_priority(2), Some(p.values()[4]));
        assert_eq!(p.change_priority(3), None);
        first_place[(p.values()[0] - 1) as usize] += 1;
    }
    // Uniform: thread 0 gets each priority about 1/5 of the time.
    assert!(
        first_place.iter().all(|&n| (850..1150).contains(&n)),
        "{first_place:?}"
    );
}

#[test]
fn exhaustive_search_is_deterministic_and_prunes() {
    let p = &paper_programs()[6]; // Fig. 10
    let run = || {
        let (runs, s, _) = run_all(
            &p.program,
            Config::default(),
            RankCheckerExhaustive::new(config(1, 2, 2)),
            100_000,
        );
        (runs.into_iter().map(|r| r.schedule).collect::<Vec<_>>(), s)
    };
    let (a, s) = run();
    let (b, _) = run();
    assert_eq!(a, b);
    assert!(s.exhausted());
    assert!(s.pruned() > 0, "{}", s.coverage());
    eprintln!("Fig. 10 at c=1, v<=2: {}", s.coverage());
}

#[test]
fn exhaustive_pruning_keeps_every_outcome_of_the_bug_programs() {
    for case in sim::programs::all()
        .into_iter()
        .filter(|c| !c.needs_spurious)
    {
        let outcomes = |prune: bool| {
            let cfg = RankCheckerConfig {
                threads: case.buggy.bodies.len() as u32,
                prune,
                ..config(1, 1, 2)
            };
            let (runs, _, exhausted) = run_all(
                &case.buggy,
                Config::default(),
                RankCheckerExhaustive::with_profile(cfg, profile(&case.buggy)),
                1_000_000,
            );
            assert!(exhausted);
            let set: std::collections::BTreeSet<String> = runs
                .iter()
                .filter(|r| !matches!(r.outcome, sim::Outcome::Stopped(_)))
                .map(|r| format!("{:?}", r.outcome))
                .collect();
            (set, runs.len())
        };
        let (full, n_full) = outcomes(false);
        let (pruned, n_pruned) = outcomes(true);
        assert_eq!(full, pruned, "{}", case.name);
        eprintln!(
            "exhaustive RankChecker {} (c<=1, v<=1): {n_full} -> {n_pruned} executions",
            case.name
        );
    }
}

/// `T1: lock m; while (flag == 0) m.wait(timeout); unlock m` and `T2: lock m; flag = 1;
/// m.notify(); unlock m`: a timeout may not fire while T2 can run, so the loop ends.
fn timed_wait_loop() -> Program {
    Program {
        name: "timed-wait-loop",
        vars: vec![0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            vec![
                Ins::Lock(0),
                Ins::Read { var: 0, reg: 0 },
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Ne,
                    val: Val::Const(0),
                    to: 5,
                },
                Ins::TimedWait(0),
                Ins::Goto(1),
                Ins::Unlock(0),
            ],
            vec![
                Ins::Lock(0),
                Ins::Write {
                    var: 0,
                    val: Val::Const(1),
                },
                Ins::Notify(0),
                Ins::Unlock(0),
            ],
        ],
    }
}

#[test]
fn timed_wait_loops_end_under_priorities_and_icb() {
    let program = timed_wait_loop();
    let config = Config {
        max_steps: 5_000,
        ..Config::default()
    };
    let (runs, _, _) = run_all(
        &program,
        config.clone(),
        RankChecker::new(config_for_loop()),
        50,
    );
    assert!(runs.iter().all(|r| !r.outcome.is_bug()), "RankChecker spun");
    let chess = RankCheckerConfig {
        c_mode: CMode::Chess,
        ..config_for_loop()
    };
    let (runs, _, _) = run_all(&program, config.clone(), RankChecker::new(chess), 50);
    assert!(
        runs.iter().all(|r| !r.outcome.is_bug()),
        "RankChecker (chess c-mode) spun"
    );
    let (runs, icb, exhausted) = run_all(
        &program,
        config,
        scheduler::strategy::icb::Icb::new(1, false),
        10_000,
    );
    assert!(exhausted, "{}", icb.coverage());
    assert!(runs.iter().all(|r| !r.outcome.is_bug()), "ICB spun");
}

fn config_for_loop() -> RankCheckerConfig {
    config(1, 1, 2)
}

/// Runs the exhaustive search restricted to `partition` to its end: `(order key, schedule)`
/// per execution, in the order it ran them.
fn run_part(program: &Program, partition: Option<Partition>) -> Vec<(Vec<u64>, String)> {
    let strategy = RankCheckerExhaustive::new(config(1, 2, 2)).with_partition(partition);
    let mut exec = Execution::new(Config::default(), strategy);
    let mut out = Vec::new();
    loop {
        sim::run_execution(&mut exec, program).expect("simulation");
        let more = exec.finish(false).expect("finish");
        let key = exec.strategy().last_order_key().unwrap_or_default();
        out.push((key.to_vec(), exec.schedule().to_text()));
        if !more {
            assert!(exec.strategy().exhausted());
            return out;
        }
        assert!(out.len() < 100_000, "{}: search too long", program.name);
        exec.restart().expect("restart");
    }
}

#[test]
fn partitions_run_exactly_the_whole_searchs_executions_in_its_order() {
    for case in paper_programs().into_iter().take(7) {
        let program = &case.program;
        let one = run_part(program, Partition::parse("1/1").ok());
        let keys: Vec<&Vec<u64>> = one.iter().map(|r| &r.0).collect();
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "{}: the order keys do not sort as the search ran",
            program.name
        );
        let whole: Vec<String> = run_part(program, None).into_iter().map(|r| r.1).collect();
        let one: Vec<String> = one.into_iter().map(|r| r.1).collect();
        assert_eq!(one, whole, "{}: 1/1 is the whole search", program.name);
        for n in 2..=4 {
            let parts: Vec<Vec<(Vec<u64>, String)>> = (1..=n)
                .map(|i| run_part(program, Partition::parse(&format!("{i}/{n}")).ok()))
                .collect();
            let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
            let back: Vec<String> = merged_by_key(parts, |r| &r.0)
                .into_iter()
                .map(|r| r.1)
                .collect();
            assert_eq!(back, whole, "{} in {n} parts {sizes:?}", program.name);
        }
    }
}
