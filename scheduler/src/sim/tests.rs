//! The model and the strategies checked on simulated programs (issue 4 part 1).

use super::programs::{self, BugCase};
use super::*;
use crate::fairness::{PAUSE_LIMIT, SPIN_LIMIT};
use crate::strategy::{Dfs, Pct, PctConfig, RandomWalk};
use crate::Timeouts;

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
    let message = Stop::Diverged(d).to_string();
    assert!(
        message.starts_with(
            "the replay diverged at choice 3: the schedule has ended but the program offered t"
        ),
        "{message}"
    );
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

/// A small random program: main starts two workers and joins them; each worker does up to three
/// random steps (accesses, critical sections, notify, timed wait, yield, assertions).
fn random_program(rng: &mut crate::SeededRandom) -> Program {
    use crate::RandomSource;
    use Ins::*;
    let mut worker = || {
        let mut v = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let var = rng.below(2) as u32;
            let m = rng.below(2) as u32;
            match rng.below(7) {
                0 => v.push(Read { var, reg: 0 }),
                1 => v.push(Write {
                    var,
                    val: Val::RegPlus(0, 1),
                }),
                2 => v.extend([Lock(m), Read { var, reg: 0 }, Unlock(m)]),
                3 => v.extend([Lock(m), Notify(m), Unlock(m)]),
                4 => v.extend([Lock(m), TimedWait(m), Unlock(m)]),
                5 => v.push(Yield),
                _ => v.push(Assert {
                    reg: 0,
                    cmp: Cmp::Lt,
                    val: Val::Const(1 + rng.below(2) as i64),
                    msg: "random assertion",
                }),
            }
        }
        v
    };
    let (w1, w2) = (worker(), worker());
    Program {
        name: "random",
        vars: vec![0; 2],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            w1,
            w2,
        ],
    }
}

/// Property, over random programs: DFS runs every schedule exactly once; replaying any of them
/// gives the same outcome and follows it to the end; random walk sees no outcome DFS did not.
#[test]
fn dfs_replay_and_random_walk_agree_on_random_programs() {
    let mut rng = crate::SeededRandom::new(77);
    let mut checked = 0;
    for _ in 0..60 {
        let p = random_program(&mut rng);
        let mut exec = Execution::new(Config::default(), Dfs::new());
        let mut runs: Vec<(Schedule, Outcome)> = Vec::new();
        let complete = loop {
            let o = run_execution(&mut exec, &p).unwrap();
            runs.push((exec.schedule().clone(), o.clone()));
            if !exec.finish(o.is_bug()).unwrap() {
                break true;
            }
            if runs.len() >= 3_000 {
                break false;
            }
            exec.restart().unwrap();
        };
        if !complete {
            continue;
        }
        checked += 1;
        let mut texts: Vec<String> = runs.iter().map(|(s, _)| s.to_text()).collect();
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), runs.len(), "{p:?}: a schedule ran twice");
        for (schedule, outcome) in runs.iter().step_by(7) {
            let (o, r) = replay(&p, Config::default(), schedule).unwrap();
            assert_eq!((&o, &r), (outcome, &ReplayResult::Followed), "{p:?}");
        }
        let mut exec = Execution::new(Config::default(), RandomWalk::new(1));
        for _ in 0..50 {
            let o = run_execution(&mut exec, &p).unwrap();
            assert!(runs.iter().any(|(_, seen)| *seen == o), "{p:?}: {o:?}");
            exec.finish(o.is_bug()).unwrap();
            exec.restart().unwrap();
        }
    }
    assert!(checked >= 40, "only {checked} programs small enough");
}

/// A hot loop: each worker reads and writes a shared counter `n` times without a lock, then the
/// main thread checks the total (a lost update needs a switch inside the loop).
fn hot_loop(n: i64) -> Program {
    use Ins::*;
    let worker = vec![
        Set {
            reg: 1,
            val: Val::Const(0),
        },
        Read { var: 0, reg: 0 },
        Write {
            var: 0,
            val: Val::RegPlus(0, 1),
        },
        Set {
            reg: 1,
            val: Val::RegPlus(1, 1),
        },
        JumpIf {
            reg: 1,
            cmp: Cmp::Ne,
            val: Val::Const(n),
            to: 1,
        },
    ];
    let main = vec![
        Start(1),
        Start(2),
        Join(1),
        Join(2),
        Read { var: 0, reg: 0 },
        Assert {
            reg: 0,
            cmp: Cmp::Eq,
            val: Val::Const(2 * n),
            msg: "an update was lost",
        },
    ];
    Program {
        name: "hot-loop",
        vars: vec![0],
        bodies: vec![main, worker.clone(), worker],
    }
}

/// Runs `executions` executions of `program` under `strategy`, with or without quiet stretches;
/// every execution's outcome, schedule and step count.
fn runs<S: Strategy>(
    program: &Program,
    config: Config,
    strategy: S,
    executions: u64,
    quiet: bool,
) -> Vec<(Outcome, Schedule, u64)> {
    let mut exec = Execution::new(config, strategy);
    let mut out = Vec::new();
    for i in 0..executions {
        if i > 0 {
            exec.restart().unwrap();
        }
        let outcome = run_execution_with(&mut exec, program, quiet).unwrap();
        out.push((outcome.clone(), exec.schedule().clone(), exec.steps()));
        exec.finish(outcome.is_bug()).unwrap();
    }
    out
}

#[test]
fn quiet_stretches_change_no_pct_schedule() {
    let mut programs: Vec<(Program, Config)> = programs::all()
        .into_iter()
        .flat_map(|c| {
            let config = config_for(&c);
            [(c.buggy, config.clone()), (c.fixed, config)]
        })
        .collect();
    programs.push((hot_loop(30), Config::default()));
    // A step bound inside the hot loop: both ways must stop at the same step.
    programs.push((
        hot_loop(30),
        Config {
            max_steps: 77,
            ..Config::default()
        },
    ));
    let mut skipped = 0;
    for (program, config) in &programs {
        for depth in 1..=3 {
            let pct = |seed| {
                Pct::new(PctConfig {
                    seed,
                    depth,
                    steps: None,
                })
            };
            for seed in 0..5 {
                let plain = runs(program, config.clone(), pct(seed), 20, false);
                let quiet = runs(program, config.clone(), pct(seed), 20, true);
                assert_eq!(plain, quiet, "{} d={depth} seed={seed}", program.name);
                // Count how much the quiet runs skipped, to know the test exercises it.
                let mut exec = Execution::new(config.clone(), pct(seed));
                run_execution_with(&mut exec, program, true).unwrap();
                skipped += exec.steps() - exec.events().len() as u64;
            }
        }
    }
    assert!(
        skipped > 1_000,
        "quiet stretches were hardly used: {skipped} steps"
    );
}

#[test]
fn a_replay_with_quiet_stretches_follows_the_recorded_schedule() {
    let program = hot_loop(25);
    let mut found = 0;
    for seed in 0..40 {
        let strategy = Pct::new(PctConfig {
            seed,
            depth: 2,
            steps: None,
        });
        for (outcome, schedule, steps) in runs(&program, Config::default(), strategy, 5, false) {
            found += u64::from(outcome.is_bug());
            let mut exec = Execution::new(Config::default(), Replay::new(&schedule));
            let replayed = run_execution_with(&mut exec, &program, true).unwrap();
            assert_eq!(replayed, outcome, "seed {seed}");
            assert_eq!(exec.steps(), steps);
            assert!(exec.events().len() as u64 <= steps);
            exec.finish(replayed.is_bug()).unwrap();
            assert_eq!(exec.strategy().result(), &ReplayResult::Followed);
        }
    }
    assert!(found > 0, "PCT d=2 never lost an update");
}

#[test]
fn a_quiet_stretch_the_schedule_does_not_have_diverges() {
    let program = hot_loop(5);
    // Record with main and worker 1 only... then replay a schedule cut short: the replay must
    // stop with a divergence, never run past what was recorded.
    let (_, schedule, steps) = runs(
        &program,
        Config::default(),
        Pct::new(PctConfig {
            seed: 3,
            depth: 1,
            steps: None,
        }),
        1,
        false,
    )
    .remove(0);
    let cut = schedule.prefix(steps / 2);
    let mut exec = Execution::new(Config::default(), Replay::new(&cut));
    let outcome = run_execution_with(&mut exec, &program, true).unwrap();
    assert!(
        matches!(outcome, Outcome::Stopped(Stop::Diverged(_))),
        "{outcome:?}"
    );
    assert_eq!(exec.steps(), steps / 2);
}

/// A worker spins on `flag` (optionally yielding) until a second worker sets it; main joins
/// both. Correct: it ends under every fair scheduler.
fn spin_until_set(yielding: bool) -> Program {
    const FLAG: u32 = 0;
    let mut spinner = vec![Read { var: FLAG, reg: 0 }];
    if yielding {
        spinner.push(Ins::Yield);
    }
    spinner.push(Ins::JumpIf {
        reg: 0,
        cmp: Cmp::Eq,
        val: Val::Const(0),
        to: 0,
    });
    Program {
        name: "spin-until-set",
        vars: vec![0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            spinner,
            vec![Write {
                var: FLAG,
                val: Val::Const(1),
            }],
        ],
    }
}

use super::Ins::{Read, Write};

/// Main waits for a flag with a timed wait in a loop (`while (!done) lock.wait(timeout)`) and
/// nobody notifies: only the timeouts let it see the worker's write. Correct under every fair
/// scheduler.
fn timed_wait_loop() -> Program {
    const FLAG: u32 = 0;
    Program {
        name: "timed-wait-loop",
        vars: vec![0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::Lock(0),
                Read { var: FLAG, reg: 0 },
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Ne,
                    val: Val::Const(0),
                    to: 6,
                },
                Ins::TimedWait(0),
                Ins::Goto(2),
                Ins::Unlock(0),
                Ins::Join(1),
            ],
            vec![
                Ins::Lock(0),
                Write {
                    var: FLAG,
                    val: Val::Const(1),
                },
                Ins::Unlock(0),
            ],
        ],
    }
}

#[test]
fn spin_waits_end_under_every_strategy_and_seed() {
    for (yielding, program, timeouts) in [
        (false, spin_until_set(false), Timeouts::Idle),
        (true, spin_until_set(true), Timeouts::Idle),
        (false, timed_wait_loop(), Timeouts::Idle),
        (false, timed_wait_loop(), Timeouts::Any),
        (true, spinner_waits_for_timed_waiter(), Timeouts::Idle),
        (true, spinner_waits_for_timed_waiter(), Timeouts::Any),
        (true, ticker_and_timed_waiter(), Timeouts::Idle),
    ] {
        let config = Config {
            max_steps: 20_000,
            livelock_window: 5_000,
            timeouts,
            ..Config::default()
        };
        for name in crate::strategy::by_name::NAMES {
            for seed in 0..4 {
                let chosen = crate::strategy::from_name(name, &Default::default(), seed).unwrap();
                let mut exec = Execution::new(config.clone(), chosen.strategy);
                for _ in 0..10 {
                    let outcome = run_execution(&mut exec, &program).unwrap();
                    // Pruned by an exhaustive search is fine; too long or a livelock is not.
                    assert!(
                        matches!(outcome, Outcome::Pass | Outcome::Stopped(_)),
                        "{} under {name} seed {seed} yielding {yielding} {timeouts:?}: {outcome:?} after {} steps",
                        program.name,
                        exec.steps()
                    );
                    let more = exec.finish(false).unwrap();
                    if !more {
                        break;
                    }
                    exec.restart().unwrap();
                }
            }
        }
    }
}

/// Main starts a worker that sets a flag and notifies, waits for it once with a timeout and
/// asserts the flag: correct unless a timeout may fire while the worker could still run
/// (`if (!pool.awaitTermination(1, MINUTES)) throw …`).
fn checked_timed_await() -> Program {
    const FLAG: u32 = 0;
    Program {
        name: "checked-timed-await",
        vars: vec![0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::Lock(0),
                Read { var: FLAG, reg: 0 },
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Ne,
                    val: Val::Const(0),
                    to: 5,
                },
                Ins::TimedWait(0),
                Ins::Unlock(0),
                Read { var: FLAG, reg: 0 },
                Ins::Assert {
                    reg: 0,
                    cmp: Cmp::Ne,
                    val: Val::Const(0),
                    msg: "gave up waiting",
                },
            ],
            vec![
                Ins::Lock(0),
                Write {
                    var: FLAG,
                    val: Val::Const(1),
                },
                Ins::NotifyAll(0),
                Ins::Unlock(0),
            ],
        ],
    }
}

/// Every outcome of every schedule of `program` (depth-first, to the end).
fn every_outcome(program: &Program, config: Config) -> Vec<Outcome> {
    let mut exec = Execution::new(config, Dfs::new());
    let mut outcomes = Vec::new();
    loop {
        let outcome = run_execution(&mut exec, program).unwrap();
        let bug = outcome.is_bug();
        outcomes.push(outcome);
        if !exec.finish(bug).unwrap() {
            return outcomes;
        }
        exec.restart().unwrap();
    }
}

/// Whether each schedule of `program` (depth-first) withheld a timeout from the strategy.
fn withheld_timeouts(program: &Program, config: Config) -> Vec<bool> {
    let mut exec = Execution::new(config, Dfs::new());
    let mut withheld = Vec::new();
    loop {
        let outcome = run_execution(&mut exec, program).unwrap();
        withheld.push(exec.timeouts_withheld() > 0);
        if !exec.finish(outcome.is_bug()).unwrap() {
            return withheld;
        }
        exec.restart().unwrap();
    }
}

#[test]
fn timeouts_withheld_while_others_run_are_counted_so_a_clean_search_can_say_so() {
    let idle = withheld_timeouts(&checked_timed_await(), Config::default());
    assert!(idle.iter().any(|&w| w), "idle: none withheld");
    assert!(
        idle.iter().any(|&w| !w),
        "idle: the waiter's own run withholds nothing"
    );
    let any = withheld_timeouts(
        &checked_timed_await(),
        Config {
            timeouts: Timeouts::Any,
            ..Config::default()
        },
    );
    assert!(any.iter().all(|&w| !w), "any timeouts: {any:?}");
}

#[test]
fn a_timeout_fires_only_when_nothing_else_can_run_unless_any_is_asked() {
    let idle = every_outcome(&checked_timed_await(), Config::default());
    assert!(
        idle.iter().all(|o| *o == Outcome::Pass),
        "idle timeouts: {idle:?}"
    );
    let any = every_outcome(
        &checked_timed_await(),
        Config {
            timeouts: Timeouts::Any,
            ..Config::default()
        },
    );
    assert!(
        any.iter().any(|o| o.is_bug()) && any.contains(&Outcome::Pass),
        "any timeouts: {any:?}"
    );
}

/// A scheduled task: a worker waits 10 ms (a delay queue's timed park) and then sets a flag;
/// main waits up to 2 s for it (`future.get(2, SECONDS)`, a timed park) and then asserts the
/// flag. Correct on any machine where running takes less than two seconds.
fn short_delay_long_patience() -> Program {
    Program {
        name: "short-delay-long-patience",
        vars: vec![0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::TimedPark(2_000_000_000),
                Read { var: 0, reg: 0 },
                Ins::Assert {
                    reg: 0,
                    cmp: Cmp::Ne,
                    val: Val::Const(0),
                    msg: "gave up before the task ran",
                },
            ],
            vec![
                Ins::TimedPark(10_000_000),
                Write {
                    var: 0,
                    val: Val::Const(1),
                },
            ],
        ],
    }
}

#[test]
fn of_two_timed_waiters_the_shorter_timeout_fires_first_unless_any_is_asked() {
    let idle = every_outcome(&short_delay_long_patience(), Config::default());
    assert!(
        idle.iter().all(|o| *o == Outcome::Pass),
        "idle timeouts: {idle:?}"
    );
    let any = every_outcome(
        &short_delay_long_patience(),
        Config {
            timeouts: Timeouts::Any,
            ..Config::default()
        },
    );
    assert!(any.iter().any(|o| o.is_bug()), "any timeouts: {any:?}");
}

/// Two threads take two locks in opposite orders while a watchdog polls (`sleep`, then a read
/// of a `done` flag main sets after joining them) — forever, or `polls` times (none at all is
/// the plain lock-order deadlock with main still runnable). When the two
/// deadlock, the watchdog goes on polling: before monitor cycles were a deadlock at once, the
/// execution ran until the watchdog looked like a livelock (or to the step bound), and a
/// JaConTeBe-style monitor thread that never stops hid the deadlock.
fn deadlock_beside_a_watchdog(polls: Option<u32>) -> Program {
    const DONE: u32 = 0;
    let watchdog = match polls {
        None => vec![
            Ins::Sleep,
            Read { var: DONE, reg: 0 },
            Ins::JumpIf {
                reg: 0,
                cmp: Cmp::Eq,
                val: Val::Const(0),
                to: 0,
            },
        ],
        Some(n) => (0..n)
            .flat_map(|_| [Ins::Sleep, Read { var: DONE, reg: 0 }])
            .collect(),
    };
    Program {
        name: if polls.is_none() {
            "deadlock-beside-a-watchdog"
        } else {
            "deadlock-beside-a-short-watchdog"
        },
        vars: vec![0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::Start(2),
                Ins::Start(3),
                Ins::Join(1),
                Ins::Join(2),
                Write {
                    var: DONE,
                    val: Val::Const(1),
                },
            ],
            vec![Ins::Lock(0), Ins::Lock(1), Ins::Unlock(1), Ins::Unlock(0)],
            vec![Ins::Lock(1), Ins::Lock(0), Ins::Unlock(0), Ins::Unlock(1)],
            watchdog,
        ],
    }
}

#[test]
fn threads_entering_each_others_monitors_are_a_deadlock_while_others_still_run() {
    let config = Config {
        livelock_window: 2_000,
        max_steps: 20_000,
        ..Config::default()
    };
    let mut exec = Execution::new(config, RandomWalk::new(5));
    let program = deadlock_beside_a_watchdog(None);
    let mut deadlocks = 0;
    for _ in 0..300 {
        let outcome = run_execution(&mut exec, &program).unwrap();
        match &outcome {
            Outcome::Pass => {}
            Outcome::Deadlock { blocked } => {
                let threads: Vec<u32> = blocked.iter().map(|(t, _)| t.0).collect();
                assert!(
                    threads == [1, 2] || threads == [2, 1],
                    "the cycle is the two lockers: {blocked:?}"
                );
                assert!(blocked
                    .iter()
                    .all(|(_, op)| matches!(op, Op::MonitorEnter { .. })));
                deadlocks += 1;
            }
            other => panic!("neither a pass nor the deadlock: {other:?}"),
        }
        exec.finish(outcome.is_bug()).unwrap();
        exec.restart().unwrap();
    }
    assert!(deadlocks > 0, "the lock-order deadlock never happened");
}

/// `while (vars[stop] == 0) { vars[written] = 1; sleep(); }`, five instructions.
fn write_and_sleep_until(stop: u32, written: u32) -> Vec<Ins> {
    vec![
        Read { var: stop, reg: 0 },
        Ins::JumpIf {
            reg: 0,
            cmp: Cmp::Ne,
            val: Val::Const(0),
            to: 5,
        },
        Write {
            var: written,
            val: Val::Const(1),
        },
        Ins::Sleep,
        Ins::Goto(0),
    ]
}

/// A monitor thread that writes what it saw (a fresh map of every thread's state, printed)
/// and sleeps, until main, after joining a worker, tells it to stop. Its writes are progress,
/// so it never spins; only its pauses say it waits for time to pass.
fn monitor_that_writes_and_sleeps() -> Program {
    const STOP: u32 = 0;
    const SEEN: u32 = 1;
    const WORK: u32 = 2;
    Program {
        name: "monitor-that-writes-and-sleeps",
        vars: vec![0, 0, 0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::Start(2),
                Ins::Join(2),
                Write {
                    var: STOP,
                    val: Val::Const(1),
                },
                Ins::Join(1),
            ],
            write_and_sleep_until(STOP, SEEN),
            vec![
                Write {
                    var: WORK,
                    val: Val::Const(1),
                },
                Read { var: WORK, reg: 0 },
            ],
        ],
    }
}

/// Finite, for the fingerprint of what the model offers: the monitor writes and sleeps `n`
/// times beside a worker's one write.
fn monitor_pausing_times(n: u32) -> Program {
    let monitor = (0..n)
        .flat_map(|_| {
            [
                Write {
                    var: 0,
                    val: Val::Const(1),
                },
                Ins::Sleep,
            ]
        })
        .collect();
    Program {
        name: "monitor-pausing-times",
        vars: vec![0, 0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            monitor,
            vec![Write {
                var: 1,
                val: Val::Const(1),
            }],
        ],
    }
}

/// Main sleeps [`SPIN_LIMIT`] times first, with checks the model does not see (reads of an
/// object only main had used, which are no scheduling points), so it counts as spinning; then
/// it polls a flag the worker set long before. The worker polls a queue with a timed park,
/// for ever until main stops it. Main's next read sees a value written since its spin began:
/// it must run, though a priority strategy prefers the worker, or a correct program ends
/// as a livelock (a `LinkedBlockingQueue.poll(10 ms)` pump beside a main that sleeps until
/// the pump's `AtomicInteger` counts to 3).
fn sleeper_polls_what_was_written_while_it_slept() -> Program {
    let mut main = vec![Ins::Start(1)];
    main.extend((0..SPIN_LIMIT).map(|_| Ins::Sleep));
    let poll = main.len() as u32;
    main.extend([
        Read { var: 0, reg: 0 },
        Ins::JumpIf {
            reg: 0,
            cmp: Cmp::Eq,
            val: Val::Const(1),
            to: poll + 4,
        },
        Ins::Sleep,
        Ins::Goto(poll),
        Write {
            var: 1,
            val: Val::Const(1),
        },
        Ins::Join(1),
    ]);
    let worker = vec![
        Write {
            var: 0,
            val: Val::Const(1),
        },
        Read { var: 1, reg: 0 },
        Ins::JumpIf {
            reg: 0,
            cmp: Cmp::Eq,
            val: Val::Const(1),
            to: 5,
        },
        Ins::TimedPark(10_000_000),
        Ins::Goto(1),
    ];
    Program {
        name: "sleeper-polls-what-was-written-while-it-slept",
        vars: vec![0, 0],
        bodies: vec![main, worker],
    }
}

#[test]
fn a_spinner_whose_next_read_sees_a_new_write_does_not_give_way() {
    let config = Config {
        livelock_window: 5_000,
        max_steps: 50_000,
        ..Config::default()
    };
    let mut exec = Execution::new(config, NewestFirst);
    let outcome =
        run_execution(&mut exec, &sleeper_polls_what_was_written_while_it_slept()).unwrap();
    assert_eq!(outcome, Outcome::Pass, "main never read the flag");
}

/// Always runs the newest enabled thread: a priority strategy whose top thread never blocks.
struct NewestFirst;

impl Strategy for NewestFirst {
    fn begin_execution(&mut self, _index: u64) {}
    fn pick(&mut self, view: &View<'_>) -> Pick {
        Ok(view.enabled.iter().map(|c| c.thread).max().unwrap())
    }
    fn end_execution(&mut self, _summary: &crate::strategy::ExecutionSummary<'_>) -> bool {
        true
    }
}

#[test]
fn a_thread_that_keeps_sleeping_gives_way_however_much_it_writes() {
    let config = Config {
        max_steps: 20_000,
        ..Config::default()
    };
    // The monitor is started before the worker, so it runs first until the worker exists.
    let mut exec = Execution::new(config, NewestFirst);
    let program = monitor_that_writes_and_sleeps();
    let outcome = run_execution(&mut exec, &program).unwrap();
    assert_eq!(outcome, Outcome::Pass, "the worker never ran");
    assert!(exec.steps() < 200, "{} steps", exec.steps());
}

/// As [`short_delay_long_patience`], but the worker polls: five timed parks of 10 ms before it
/// sets the flag. Its parks time out one after another with nobody else running, which made it
/// count as spinning, and then main's 2 s timeout fired before the worker's write (a
/// `CountDownLatch.await(5, SECONDS)` failed behind three `parkNanos(10 ms)` polls).
fn polling_delay_long_patience() -> Program {
    let mut program = short_delay_long_patience();
    program.name = "polling-delay-long-patience";
    let poll = program.bodies[1][0];
    program.bodies[1].splice(0..0, [poll; 4]);
    program
}

#[test]
fn a_thread_that_polls_with_timed_parks_does_not_let_a_longer_timeout_fire_first() {
    let idle = every_outcome(&polling_delay_long_patience(), Config::default());
    assert!(
        idle.iter().all(|o| *o == Outcome::Pass),
        "idle timeouts: {idle:?}"
    );
}

/// Main waits for a minute with a timeout nobody ends early (`lock.wait(timeout)`), then stops
/// a ticker that loops `while (!stop) { ticks++; sleep(); }`: the ticker writes, so it never
/// spins, and only its sleeps move time on to main's deadline. Before sleeps moved virtual
/// time, main's timeout was never offered while the ticker could run: too long.
fn ticker_and_timed_waiter() -> Program {
    const STOP: u32 = 0;
    const TICKS: u32 = 1;
    Program {
        name: "ticker-and-timed-waiter",
        vars: vec![0, 0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::Lock(0),
                Ins::TimedWait(0),
                Ins::Unlock(0),
                Write {
                    var: STOP,
                    val: Val::Const(1),
                },
                Ins::Join(1),
            ],
            {
                let mut ticker = write_and_sleep_until(STOP, TICKS);
                ticker.push(Read { var: TICKS, reg: 1 });
                ticker
            },
        ],
    }
}

/// Main waits one timed wait (1 ms) while a worker sleeps eleven times (0.1 ms each) before it
/// writes: from the tenth sleep on, main's timeout has passed and fires first. Finite, for the
/// fingerprint of what the model offers.
fn sleeper_outlasts_timed_waiter() -> Program {
    let mut worker = vec![Ins::Sleep; 11];
    worker.push(Write {
        var: 0,
        val: Val::Const(1),
    });
    Program {
        name: "sleeper-outlasts-timed-waiter",
        vars: vec![0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Ins::Lock(0),
                Ins::TimedWait(0),
                Ins::Unlock(0),
                Read { var: 0, reg: 0 },
                Ins::Join(1),
            ],
            worker,
        ],
    }
}

/// A timed waiter that sets a flag after its timeout, and main spinning on the flag: the
/// timeout must fire although main is enabled (it only spins), under both `Timeouts`.
fn spinner_waits_for_timed_waiter() -> Program {
    Program {
        name: "spinner-waits-for-timed-waiter",
        vars: vec![0],
        bodies: vec![
            vec![
                Ins::Start(1),
                Read { var: 0, reg: 0 },
                Ins::Yield,
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Eq,
                    val: Val::Const(0),
                    to: 1,
                },
            ],
            vec![
                Ins::Lock(0),
                Ins::TimedWait(0),
                Ins::Unlock(0),
                Write {
                    var: 0,
                    val: Val::Const(1),
                },
            ],
        ],
    }
}

#[test]
fn two_threads_waiting_for_flags_nobody_sets_are_a_livelock_with_their_sites() {
    let spin_on = |var: u32| {
        vec![
            Read { var, reg: 0 },
            Ins::Yield,
            Ins::JumpIf {
                reg: 0,
                cmp: Cmp::Eq,
                val: Val::Const(0),
                to: 0,
            },
        ]
    };
    let program = Program {
        name: "polite-livelock",
        vars: vec![0, 0],
        bodies: vec![
            vec![Ins::Start(1), Ins::Start(2), Ins::Join(1), Ins::Join(2)],
            spin_on(0),
            spin_on(1),
        ],
    };
    let config = Config {
        max_steps: 100_000,
        livelock_window: 2_000,
        ..Config::default()
    };
    let mut exec = Execution::new(config, RandomWalk::new(1));
    match run_execution(&mut exec, &program).unwrap() {
        Outcome::Livelock { spinning } => {
            let threads: Vec<ThreadId> = spinning.iter().map(|(t, _)| *t).collect();
            assert_eq!(threads, vec![ThreadId(1), ThreadId(2)]);
            assert!(spinning.iter().all(|(_, sites)| !sites.is_empty()));
        }
        other => panic!("expected a livelock, got {other:?}"),
    }
    assert!(
        exec.steps() < 10_000,
        "found within the window: {}",
        exec.steps()
    );
}

#[test]
fn the_step_bound_alone_is_no_bug() {
    assert!(!Outcome::StepBound.is_bug());
}

use crate::strategy::{Pick, View};

/// A strategy that runs `Dfs` and feeds everything the model offers it (every candidate of
/// every pick: thread, operation, how it is enabled, its yields; every waiter set of a notify)
/// and every execution's end into one stable hash.
struct Offers {
    dfs: Dfs,
    hash: fnv::FnvHasher,
}

impl Offers {
    fn feed(&mut self, what: String) {
        use std::hash::Hasher;
        self.hash.write(what.as_bytes());
        self.hash.write(&[0xff]);
    }
}

impl Strategy for Offers {
    fn begin_execution(&mut self, index: u64) {
        self.feed(format!("begin {index}"));
        self.dfs.begin_execution(index)
    }
    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.feed(format!(
            "pick at {} running {:?} {}: {:?}",
            view.step, view.running, view.running_enabled, view.enabled
        ));
        self.dfs.pick(view)
    }
    fn pick_waiter(&mut self, obj: crate::ObjId, waiters: &[crate::ThreadId]) -> Pick {
        self.feed(format!("waiters of {obj:?}: {waiters:?}"));
        self.dfs.pick_waiter(obj, waiters)
    }
    fn end_execution(&mut self, summary: &crate::strategy::ExecutionSummary<'_>) -> bool {
        self.feed(format!(
            "end after {} steps: {:?} {}",
            summary.steps, summary.ending, summary.bug
        ));
        self.dfs.end_execution(summary)
    }
}

/// A stable hash of everything the model offers over every schedule of a fixed set of
/// simulated programs, under the default `Config` (timeouts idle), with spurious wake-ups, and
/// with a timed wait: what a recorded choice is an index into.
fn offers_fingerprint() -> u64 {
    use std::hash::Hasher;
    let mut programs: Vec<(Program, Config)> = Vec::new();
    for case in programs::all() {
        let config = Config {
            max_spurious_wakeups: 1,
            ..config_for(&case)
        };
        programs.push((case.buggy.clone(), config.clone()));
        programs.push((case.fixed.clone(), config));
    }
    programs.push((checked_timed_await(), Config::default()));
    programs.push((short_delay_long_patience(), Config::default()));
    programs.push((sleeper_outlasts_timed_waiter(), Config::default()));
    programs.push((polling_delay_long_patience(), Config::default()));
    programs.push((deadlock_beside_a_watchdog(Some(0)), Config::default()));
    programs.push((monitor_pausing_times(PAUSE_LIMIT + 2), Config::default()));
    programs.push((
        sleeper_polls_what_was_written_while_it_slept(),
        Config {
            livelock_window: 5_000,
            max_steps: 50_000,
            ..Config::default()
        },
    ));
    let mut offers = Offers {
        dfs: Dfs::new(),
        hash: fnv::FnvHasher::default(),
    };
    for (program, config) in programs {
        offers.feed(format!("program {}", program.name));
        offers.dfs = Dfs::new();
        let report = search(&program, config, &mut offers, 2_000_000, false).unwrap();
        assert!(report.exhausted, "{}: DFS did not finish", program.name);
    }
    offers.hash.finish()
}

/// `(schedule::VERSION, offers_fingerprint())` as they were last changed together.
const OFFERS: (u32, u64) = (15, 0x4ceb_71b2_5d76_4ecb);

#[test]
fn the_schedule_version_changes_with_what_the_model_offers() {
    // A recorded choice is an index into what the model offers: when that changes, old
    // schedules diverge, so the schedule format's version must change with it (ARCHITECTURE.md).
    let fingerprint = offers_fingerprint();
    let (version, pinned) = OFFERS;
    assert!(
        fingerprint == pinned || crate::schedule::VERSION != version,
        "the model offers something else now: bump schedule::VERSION and update the \
         fingerprint (OFFERS in scheduler/src/sim/tests.rs) to ({}, {fingerprint:#018x})",
        version + 1
    );
    assert_eq!(
        (crate::schedule::VERSION, fingerprint),
        OFFERS,
        "schedule::VERSION changed: set OFFERS in scheduler/src/sim/tests.rs to \
         ({}, {fingerprint:#018x})",
        crate::schedule::VERSION
    );
}

#[test]
fn a_pruned_schedule_replays_cut_short_where_it_was_pruned() {
    use crate::strategy::icb::Icb;
    let program = programs::lost_update(true);
    let mut exec = Execution::new(Config::default(), Icb::new(2, true));
    let mut pruned = 0;
    loop {
        let outcome = run_execution(&mut exec, &program).unwrap();
        if matches!(outcome, Outcome::Stopped(Stop::Pruned)) {
            pruned += 1;
            let schedule = exec.schedule().clone();
            let replay = Replay::new(&schedule).cut_short();
            let mut again = Execution::new(Config::default(), replay);
            assert_eq!(run_execution(&mut again, &program).unwrap(), outcome);
            assert_eq!(again.steps(), exec.steps());
            // Read as a whole execution's schedule, it runs out while the program goes on.
            let mut whole = Execution::new(Config::default(), Replay::new(&schedule));
            assert!(matches!(
                run_execution(&mut whole, &program).unwrap(),
                Outcome::Stopped(Stop::Diverged(_))
            ));
        }
        if !exec.finish(outcome.is_bug()).unwrap() {
            break;
        }
        exec.restart().unwrap();
    }
    assert!(pruned > 0, "ICB pruned nothing");
}
