//! The model and the strategies checked on simulated programs (issue 4 part 1).

use super::programs::{self, BugCase};
use super::*;
use crate::strategy::{Dfs, Pct, PctConfig, RandomWalk};

fn config_for(case: &BugCase) -> Config {
    Config {
        max_steps: 2_000,
        spurious_wakeups: case.needs_spurious,
        ..Config::default()
    }
}

fn brute_force(program: &Program, config: Config) -> SearchReport {
    let report = search(program, config, Dfs::new(), 2_000_000, false).unwrap();
    assert!(report.exhausted, "{}: DFS did not finish", program.name);
    report
}

#[test]
fn dfs_enumerates_exactly_the_interleavings() {
    // main: Begin Start End; child: Begin End. After Start, main's End interleaves with the
    // child's two steps in C(3, 1) = 3 ways.
    let p = Program {
        name: "one-child",
        vars: vec![],
        bodies: vec![vec![Ins::Start(1)], vec![]],
    };
    let report = brute_force(&p, Config::default());
    assert_eq!((report.executions, report.bugs), (3, 0));
}

#[test]
fn brute_force_finds_every_bug() {
    for case in programs::all() {
        let report = brute_force(&case.buggy, config_for(&case));
        assert!(report.bugs > 0, "{}: no failing schedule", case.name);
        eprintln!(
            "{}: {} of {} schedules fail",
            case.name, report.bugs, report.executions
        );
    }
}

#[test]
fn fixed_versions_never_fail_under_brute_force() {
    for case in programs::all() {
        for spurious in [false, true] {
            // One spurious wake-up per execution keeps the sweep small (214k schedules for
            // `notify` with two) and still exercises every spurious path once.
            let config = Config {
                spurious_wakeups: spurious,
                max_spurious_wakeups: 1,
                ..config_for(&case)
            };
            let report = brute_force(&case.fixed, config);
            assert_eq!(
                report.bugs, 0,
                "{} (spurious {spurious}): {:?}",
                case.name, report.first_bug
            );
        }
    }
}

#[test]
fn the_spurious_bug_needs_spurious_wakeups() {
    let case = programs::all()
        .into_iter()
        .find(|c| c.needs_spurious)
        .unwrap();
    let off = Config {
        spurious_wakeups: false,
        ..config_for(&case)
    };
    assert_eq!(brute_force(&case.buggy, off).bugs, 0);
}

/// How many of 20 seeds find the bug within 500 executions.
fn seeds_finding<S: Strategy>(case: &BugCase, make: impl Fn(u64) -> S) -> usize {
    (0..20)
        .filter(|&seed| {
            let report = search(&case.buggy, config_for(case), make(seed), 500, true).unwrap();
            report.first_bug.is_some()
        })
        .count()
}

#[test]
fn random_walk_finds_every_bug_for_19_of_20_seeds() {
    for case in programs::all() {
        let found = seeds_finding(&case, RandomWalk::new);
        assert!(found >= 19, "{}: {found}/20 seeds", case.name);
    }
}

#[test]
fn pct_finds_every_bug_for_19_of_20_seeds() {
    for case in programs::all() {
        let found = seeds_finding(&case, |seed| {
            Pct::new(PctConfig {
                seed,
                depth: case.depth,
                steps: None,
            })
        });
        assert!(found >= 19, "{}: {found}/20 seeds", case.name);
    }
}

/// Observed hit rate of PCT(d) on `program` over `runs` executions, and the guarantee
/// 1/(n·k^(d−1)) with n the threads and k the largest step count seen.
fn pct_rate(program: &Program, depth: u32, runs: u64) -> (f64, f64) {
    let mut pct = Pct::new(PctConfig {
        seed: 11,
        depth,
        steps: None,
    });
    // One warm-up execution teaches PCT k.
    search(program, Config::default(), &mut pct, 1, false).unwrap();
    let report = search(program, Config::default(), &mut pct, runs, false).unwrap();
    let k = pct.steps_estimate() as f64;
    let n = program.bodies.len() as f64;
    let bound = 1.0 / (n * k.powi(depth as i32 - 1));
    eprintln!(
        "{} d={depth}: rate {} bound {bound}",
        program.name,
        report.bugs as f64 / runs as f64
    );
    (report.bugs as f64 / runs as f64, bound)
}

#[test]
fn pct_meets_its_depth_bound() {
    // Depth 1 among 4 threads: bound 1/4.
    let (rate, bound) = pct_rate(&programs::use_before_init(2), 1, 1_000);
    assert!(rate >= bound * 0.7, "depth 1: rate {rate} < bound {bound}");
    // Depth 2 (the lost update needs two orderings): bound 1/(3·k).
    let (rate, bound) = pct_rate(&programs::lost_update(false), 2, 3_000);
    assert!(rate >= bound * 0.7, "depth 2: rate {rate} < bound {bound}");
}

/// The schedules of the first `n` executions of a strategy.
fn schedules<S: Strategy>(program: &Program, strategy: S, n: usize) -> Vec<String> {
    let mut exec = Execution::new(Config::default(), strategy);
    let mut out = Vec::new();
    for i in 0..n {
        let outcome = run_execution(&mut exec, program).unwrap();
        out.push(exec.schedule().to_text());
        exec.finish(outcome.is_bug()).unwrap();
        if i + 1 < n {
            exec.restart().unwrap();
        }
    }
    out
}

#[test]
fn the_same_seed_gives_the_same_schedules() {
    let p = programs::if_instead_of_while(false);
    let pct = |seed| {
        Pct::new(PctConfig {
            seed,
            depth: 3,
            steps: None,
        })
    };
    assert_eq!(
        schedules(&p, RandomWalk::new(5), 40),
        schedules(&p, RandomWalk::new(5), 40)
    );
    assert_ne!(
        schedules(&p, RandomWalk::new(5), 40),
        schedules(&p, RandomWalk::new(6), 40)
    );
    assert_eq!(schedules(&p, pct(5), 40), schedules(&p, pct(5), 40));
    assert_ne!(schedules(&p, pct(5), 40), schedules(&p, pct(6), 40));
}

#[test]
fn replaying_a_failing_schedule_reproduces_the_failure() {
    for case in programs::all() {
        let report = search(
            &case.buggy,
            config_for(&case),
            RandomWalk::new(1),
            5_000,
            true,
        )
        .unwrap();
        let found = report.first_bug.expect(case.name);
        // Through the text format, as `rankcheck replay` does.
        let schedule = Schedule::parse(&found.schedule.to_text()).unwrap();
        let (outcome, result) = replay(&case.buggy, config_for(&case), &schedule).unwrap();
        assert_eq!(outcome, found.outcome, "{}", case.name);
        assert_eq!(result, ReplayResult::Followed, "{}", case.name);
    }
}

#[test]
fn replay_reports_divergence_instead_of_continuing() {
    let case = &programs::all()[0];
    let found = search(
        &case.buggy,
        config_for(case),
        RandomWalk::new(1),
        5_000,
        true,
    )
    .unwrap()
    .first_bug
    .unwrap();
    // The fixed program takes a lock first, so the recorded picks stop matching somewhere.
    let (outcome, result) = replay(&case.fixed, config_for(case), &found.schedule).unwrap();
    let Outcome::Stopped(Stop::Diverged(d)) = outcome else {
        panic!("expected a divergence, got {outcome:?}");
    };
    assert_eq!(result, ReplayResult::Diverged(d.clone()));
    assert!(!d.offered.is_empty());
    // A schedule cut short diverges at its end.
    let short = found.schedule.prefix(3);
    let (outcome, result) = replay(&case.buggy, config_for(case), &short).unwrap();
    assert!(matches!(outcome, Outcome::Stopped(Stop::Diverged(_))));
    let ReplayResult::Diverged(d) = result else {
        panic!("{result:?}")
    };
    assert_eq!((d.choice_index, d.expected), (3, None));
}

#[test]
fn a_boxed_strategy_chosen_at_run_time_works() {
    let strategies: Vec<Box<dyn Strategy + Send>> = vec![
        Box::new(RandomWalk::new(3)),
        Box::new(Pct::new(PctConfig {
            seed: 3,
            depth: 2,
            steps: None,
        })),
    ];
    for s in strategies {
        let report = search(
            &programs::lock_order_deadlock(false),
            Config::default(),
            s,
            500,
            true,
        )
        .unwrap();
        assert!(report.first_bug.is_some());
    }
}

#[test]
fn waiter_choices_are_recorded_and_replayed() {
    // In the notify program a failing schedule has a `notify` with two waiters wake the wrong
    // one: the schedule holds that waiter choice, and replay makes it again.
    let p = programs::notify_instead_of_notify_all(false);
    let found = search(&p, Config::default(), RandomWalk::new(2), 5_000, true)
        .unwrap()
        .first_bug
        .unwrap();
    assert!(found
        .schedule
        .iter()
        .any(|c| matches!(c, crate::Choice::Waiter(_))));
    assert!(found.schedule.to_text().lines().any(|l| l.starts_with('w')));
    let (outcome, result) = replay(&p, Config::default(), &found.schedule).unwrap();
    assert_eq!((outcome, result), (found.outcome, ReplayResult::Followed));
}

#[test]
fn exit_ends_the_execution_with_its_status() {
    let p = Program {
        name: "exit",
        vars: vec![0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Exit(3)],
            vec![Ins::Write {
                var: 0,
                val: Val::Const(1),
            }],
        ],
    };
    let report = brute_force(&p, Config::default());
    assert_eq!(report.bugs, report.executions);
    assert_eq!(report.first_bug.unwrap().outcome, Outcome::Exit(3));
}
