use super::*;
use crate::sim::{run_execution, Cmp, Ins, Outcome, Program, Val};
use crate::strategy::{RandomWalk, Replay};
use crate::{Config, Execution};

use Ins::*;

const A: u32 = 0;

/// `n` writes of the thread's own variable `var`.
fn noise(var: u32, n: usize) -> Vec<Ins> {
    (0..n)
        .map(|i| Write {
            var,
            val: Val::Const(i as i64),
        })
        .collect()
}

/// Thread 1 reads `a` twice (noise between) and asserts both reads agree; thread 2 does
/// `second_write` after a first write of 1 (`a = a + 1` with one preemption needed, or
/// `a = 1; a = 0`, two preemptions needed); thread 3 only makes noise. Main starts the three
/// and joins them.
fn program(two_preemptions: bool) -> Program {
    let reader = [
        noise(1, 3),
        vec![Read { var: A, reg: 0 }],
        noise(1, 3),
        vec![
            Read { var: A, reg: 1 },
            Assert {
                reg: 1,
                cmp: Cmp::Eq,
                val: Val::Reg(0),
                msg: "a changed between two reads",
            },
        ],
        noise(1, 3),
    ]
    .concat();
    let writer = if two_preemptions {
        [
            noise(2, 3),
            vec![Write {
                var: A,
                val: Val::Const(1),
            }],
            noise(2, 3),
            vec![Write {
                var: A,
                val: Val::Const(0),
            }],
            noise(2, 3),
        ]
        .concat()
    } else {
        [
            noise(2, 3),
            vec![
                Read { var: A, reg: 0 },
                Write {
                    var: A,
                    val: Val::RegPlus(0, 1),
                },
            ],
            noise(2, 3),
        ]
        .concat()
    };
    let main = vec![Start(1), Start(2), Start(3), Join(1), Join(2), Join(3)];
    Program {
        name: if two_preemptions {
            "needs-two"
        } else {
            "needs-one"
        },
        vars: vec![0; 4],
        bodies: vec![main, reader, writer, noise(3, 8)],
    }
}

fn run(program: &Program, guide: &Guide) -> (Outcome, Schedule) {
    let mut exec = Execution::new(Config::default(), Guided::new(vec![guide.clone()]));
    let outcome = run_execution(&mut exec, program).unwrap();
    let schedule = exec.schedule().clone();
    exec.finish(outcome.is_bug()).unwrap();
    (outcome, schedule)
}

/// The outcome of replaying `schedule`, the steps at which it preempted, and its steps.
fn replayed(program: &Program, schedule: &Schedule) -> (Outcome, BTreeSet<u64>, Vec<TracedStep>) {
    let mut exec = Execution::new(Config::default(), Replay::new(schedule));
    exec.record_steps(true);
    let outcome = run_execution(&mut exec, program).unwrap();
    let steps = TracedStep::of_events(exec.events(), exec.step_marks().unwrap());
    let marks = steps
        .iter()
        .filter(|s| s.preempted)
        .map(|s| s.step)
        .collect();
    exec.finish(outcome.is_bug()).unwrap();
    (outcome, marks, steps)
}

/// A failing schedule with many preemptions, found by a random walk.
fn noisy_failure(program: &Program) -> (Outcome, Schedule, BTreeSet<u64>, Vec<TracedStep>) {
    for seed in 0..200 {
        let mut exec = Execution::new(Config::default(), RandomWalk::new(seed));
        let outcome = run_execution(&mut exec, program).unwrap();
        if outcome.is_bug() {
            let schedule = exec.schedule().clone();
            let (again, preempted, steps) = replayed(program, &schedule);
            assert_eq!(again, outcome);
            if preempted.len() >= 4 {
                return (outcome, schedule, preempted, steps);
            }
        }
    }
    panic!("no noisy failure of {}", program.name);
}

fn shrink(program: &Program) -> (usize, Minimized<Schedule>, BTreeSet<u64>) {
    shrink_with(program, Limits::default())
}

fn shrink_with(program: &Program, limits: Limits) -> (usize, Minimized<Schedule>, BTreeSet<u64>) {
    let (outcome, schedule, preempted, steps) = noisy_failure(program);
    let original = Guide::from_schedule(&schedule, &steps, true);
    assert_eq!(original.preemptions().count(), preempted.len());
    // The guide of the original makes the original again.
    assert_eq!(run(program, &original).1, schedule);
    let mut oracle = |batch: &[Guide]| -> Option<Vec<Tested<Schedule>>> {
        Some(
            batch
                .iter()
                .map(|g| {
                    let (got, s) = run(program, g);
                    (got == outcome).then(|| (s.len(), s))
                })
                .collect(),
        )
    };
    let result = minimize(&original, &Place::of_steps(&steps), limits, &mut oracle);
    let (_, schedule) = result.found.clone().expect("the original reproduces");
    // The minimal schedule is an ordinary one: it replays, and fails the same way with as
    // many preemptions as its guide.
    let (again, marks, _) = replayed(program, &schedule);
    assert_eq!(again, outcome);
    assert_eq!(marks.len(), result.preemptions);
    (preempted.len(), result, marks)
}

#[test]
fn a_noisy_schedule_shrinks_to_the_one_preemption_needed() {
    let (before, result, _) = shrink(&program(false));
    assert!(before >= 4, "{before}");
    assert_eq!(result.preemptions_before, before);
    assert_eq!(result.preemptions, 1, "{}", result.guide.to_text());
    assert_eq!(result.threads, 2);
    assert!(result.complete);
}

#[test]
fn a_noisy_schedule_shrinks_to_the_two_preemptions_needed() {
    let (before, result, _) = shrink(&program(true));
    assert!(before >= 4, "{before}");
    assert_eq!(result.preemptions, 2, "{}", result.guide.to_text());
    assert_eq!(result.threads, 2);
    let involved = result.guide.preempting_threads();
    assert_eq!(
        involved,
        [ThreadId(1), ThreadId(2)].into_iter().collect(),
        "the reader and the writer"
    );
}

#[test]
fn minimizing_is_deterministic() {
    let a = shrink(&program(true));
    let b = shrink(&program(true));
    assert_eq!(a.1.guide, b.1.guide);
    assert_eq!(a.1.tried, b.1.tried);
    assert_eq!(a.1.found.map(|f| f.1), b.1.found.map(|f| f.1));
}

#[test]
fn a_time_out_keeps_the_smallest_seen() {
    let p = program(false);
    let (outcome, schedule, preempted, steps) = noisy_failure(&p);
    let original = Guide::from_schedule(&schedule, &steps, true);
    let mut batches = 0;
    let mut oracle = |batch: &[Guide]| -> Option<Vec<Tested<()>>> {
        batches += 1;
        (batches == 1).then(|| {
            batch
                .iter()
                .map(|g| (run(&p, g).0 == outcome).then_some((0, ())))
                .collect()
        })
    };
    let result = minimize(
        &original,
        &Place::of_steps(&steps),
        Limits::default(),
        &mut oracle,
    );
    assert!(!result.complete);
    assert_eq!(result.preemptions, preempted.len());
    assert!(result.found.is_some());
}

#[test]
fn guides_round_trip_through_text() {
    let g = Guide {
        switches: vec![
            Switch {
                from: ThreadId(1),
                after: 3,
                site: Some(-52),
                past: false,
                to: ThreadId(2),
                preempt: true,
            },
            Switch {
                from: ThreadId(0),
                after: 5,
                site: None,
                past: false,
                to: ThreadId(1),
                preempt: false,
            },
        ],
        wakes: vec![Wake {
            notifier: ThreadId(0),
            after: 7,
            waiter: ThreadId(2),
        }],
        prefer: vec![ThreadId(2)],
    };
    let text = Guide::many_to_text(&[g.clone(), Guide::default()]);
    assert_eq!(
        text,
        "rankcheck-guide 1\np t1@3/-52 t2\ns t0@5 t1\nw t0@7 t2\nf t2\nrankcheck-guide 1\n"
    );
    assert_eq!(Guide::parse_many(&text).unwrap(), vec![g, Guide::default()]);
    for (bad, needle) in [
        ("", "empty guide"),
        ("p t1@3 t2\n", "expected the header"),
        ("rankcheck-guide 2\n", "unsupported"),
        ("rankcheck-guide 1\nx t1@3 t2\n", "unknown entry"),
        ("rankcheck-guide 1\nf 3\n", "bad thread"),
        ("rankcheck-guide 1\np t1 t2\n", "tN@STEPS"),
        ("rankcheck-guide 1\np t1@3\n", "expected `KIND"),
    ] {
        let e = Guide::parse_many(bad).unwrap_err();
        assert!(e.to_string().contains(needle), "{bad:?}: {e}");
    }
}

#[test]
fn words_for_the_preemptions() {
    let two: BTreeSet<ThreadId> = [ThreadId(1), ThreadId(2)].into_iter().collect();
    assert_eq!(describe(1, &two), "1 preemption between t1 and t2");
    assert_eq!(describe(0, &BTreeSet::new()), "0 preemptions");
}

/// A livelock's trace has a million places: relocation builds what the limits can run (and
/// one more, so the search knows it was cut), not every guide (tens of gigabytes).
#[test]
fn relocation_builds_no_more_candidates_than_can_run() {
    let switch = |from: u32, to: u32, after: u64| Switch {
        from: ThreadId(from),
        after,
        site: Some(7),
        past: false,
        to: ThreadId(to),
        preempt: true,
    };
    let guide = Guide {
        switches: vec![switch(0, 1, 3), switch(1, 2, 5), switch(2, 0, 8)],
        wakes: Vec::new(),
        prefer: Vec::new(),
    };
    let places: Vec<Place> = (0..1_000_000u64)
        .map(|i| Place {
            thread: ThreadId((i % 3) as u32),
            site: 7,
            occurrence: i / 3,
        })
        .collect();
    assert_eq!(
        relocations(&guide, &places, Batch::new(50)).guides.len(),
        51
    );
    assert!(
        relocations(&guide, &places[..10], Batch::new(1000))
            .guides
            .len()
            < 100
    );
    assert!(relocations(
        &Guide {
            switches: vec![switch(0, 1, 3)],
            wakes: Vec::new(),
            prefer: Vec::new(),
        },
        &places,
        Batch::new(9)
    )
    .is_empty());
}

/// `n` preemptions back and forth between threads 1 and 2, and one by main (thread 0), so that
/// three threads are involved.
fn many_preemptions(n: u64) -> Guide {
    let mut switches: Vec<Switch> = (0..n)
        .map(|i| Switch {
            from: ThreadId(1 + (i % 2) as u32),
            after: 10 * (i / 2),
            site: Some(7),
            past: false,
            to: ThreadId(2 - (i % 2) as u32),
            preempt: true,
        })
        .collect();
    switches.push(Switch {
        from: ThreadId(0),
        after: 1,
        site: Some(3),
        past: false,
        to: ThreadId(1),
        preempt: true,
    });
    Guide {
        switches,
        wakes: Vec::new(),
        prefer: Vec::new(),
    }
}

/// A livelock's schedule under surw switches at nearly every access: hundreds of thousands of
/// preemptions. Pointing each at another thread, or moving each earlier, makes one whole guide
/// per preemption; the passes build what the limits can run (and one more), not all of them
/// (thousands of guides of thousands of switches here; a livelock's took rankcheck past 23 GB).
#[test]
fn every_pass_builds_no_more_candidates_than_can_run() {
    let guide = many_preemptions(3_000);
    let involved = guide.preempting_threads();
    assert_eq!(involved.len(), 3);
    assert_eq!(
        redirections(&guide, &involved, Batch::new(50)).guides.len(),
        51
    );
    assert_eq!(moves_earlier(&guide, Batch::new(50)).guides.len(), 51);
    let current: Vec<Switch> = guide.preemptions().copied().collect();
    assert_eq!(
        ddmin_candidates(&guide, &current, 1_000, Batch::new(50))
            .guides
            .len(),
        51
    );
    // Few candidates of many switches: cut by the switches they hold.
    let huge = many_preemptions(2 * BATCH_SWITCHES as u64);
    let batch = redirections(&huge, &involved, Batch::new(50));
    assert_eq!(batch.guides.len(), 1, "the first always, then full");
    assert!(batch.full());
}

/// The whole search on such a schedule: no batch the oracle gets holds more than
/// [`BATCH_SWITCHES`] switches, and a search cut by that says it did not complete.
#[test]
fn a_schedule_of_many_preemptions_is_minimized_in_bounded_batches() {
    let original = many_preemptions(300_000);
    let before = original.preemptions().count();
    let mut largest = 0;
    let mut oracle = |batch: &[Guide]| -> Option<Vec<Tested<()>>> {
        let switches: usize = batch.iter().map(|g| g.switches.len()).sum();
        assert!(
            batch.len() == 1 || switches <= BATCH_SWITCHES,
            "a batch of {} candidates, {switches} switches",
            batch.len()
        );
        largest = largest.max(switches);
        // Fails the same way while it keeps nine tenths of the preemptions.
        Some(
            batch
                .iter()
                .map(|g| (g.preemptions().count() * 10 >= before * 9).then_some((1, ())))
                .collect(),
        )
    };
    let result = minimize(&original, &[], Limits { candidates: 60 }, &mut oracle);
    assert!(largest > BATCH_SWITCHES / 2, "{largest}");
    assert!(!result.complete);
    assert!(result.found.is_some());
}

/// Reorder-`n`: `n - 1` threads write `a = 1; b = 1`, one reads `a` then `b` and asserts
/// `b <= a` (it fails only when it read `a` before any write and `b` after a whole pair; a
/// writer preempted between its writes is no failure); main starts them all, then joins them.
fn reorder(n: u32) -> Program {
    let setter = vec![
        Write {
            var: A,
            val: Val::Const(1),
        },
        Write {
            var: 1,
            val: Val::Const(1),
        },
    ];
    let checker = vec![
        Read { var: A, reg: 0 },
        Read { var: 1, reg: 1 },
        Assert {
            reg: 1,
            cmp: Cmp::Le,
            val: Val::Reg(0),
            msg: "saw the second write before the first",
        },
    ];
    let mut bodies = vec![Vec::new()];
    let mut main = Vec::new();
    for t in 1..=n {
        bodies.push(if t == n {
            checker.clone()
        } else {
            setter.clone()
        });
        main.push(Start(t));
    }
    for t in 1..=n {
        main.push(Join(t));
    }
    bodies[0] = main;
    Program {
        name: "reorder",
        vars: vec![0; 2],
        bodies,
    }
}

/// A failing schedule of `reorder(n)` that preempts every writer right after it began, so
/// that the reader reads `a` before any write, and the reader between its reads: `n`
/// preemptions, and main's join hands the free choice to the first writer.
fn writers_first(n: u32) -> Guide {
    let p = |from: u32, after: u64, to: u32| Switch {
        from: ThreadId(from),
        after,
        site: None,
        past: false,
        to: ThreadId(to),
        preempt: true,
    };
    let mut switches: Vec<Switch> = (1..n).map(|w| p(w, 1, w + 1)).collect();
    switches.push(p(n, 2, 1));
    Guide {
        switches,
        ..Guide::default()
    }
}

/// Every writer preempted so that the reader can read first: where the lowest thread runs
/// whenever the choice is free, the first writer runs before the reader and must be preempted
/// too (two preemptions), but preferring the reader where main's join leaves the choice free
/// needs only the reader's own.
#[test]
fn a_thread_that_must_run_first_is_preferred_instead_of_preempting_the_others() {
    let program = reorder(8);
    let original = writers_first(8);
    let (outcome, schedule) = run(&program, &original);
    assert!(outcome.is_bug(), "{outcome:?}");
    let (_, marks, steps) = replayed(&program, &schedule);
    assert_eq!(marks.len(), 8, "{}", schedule.to_text());
    // Its preemptions alone (the guide `from_schedule` makes would also name who ran where
    // main blocked, which leaves a shortcut through those hints).
    let mut oracle = |batch: &[Guide]| -> Option<Vec<Tested<Schedule>>> {
        Some(
            batch
                .iter()
                .map(|g| {
                    let (got, s) = run(&program, g);
                    (got == outcome).then(|| (s.len(), s))
                })
                .collect(),
        )
    };
    let result = minimize(
        &original,
        &Place::of_steps(&steps),
        Limits { candidates: 2000 },
        &mut oracle,
    );
    assert_eq!(result.preemptions, 1, "{}", result.guide.to_text());
    assert_eq!(
        result.guide.prefer,
        vec![ThreadId(8)],
        "{}",
        result.guide.to_text()
    );
    assert!(result.complete);
    let (_, schedule) = result.found.expect("reproduces");
    let (again, marks, _) = replayed(&program, &schedule);
    assert_eq!(again, outcome);
    assert_eq!(marks.len(), 1);
}
