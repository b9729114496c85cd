//! MCR on simulated programs, against brute force: the reads-from combinations it runs are
//! exactly those of every interleaving, each once (but for a measured exception), in fewer
//! executions than ICB with happens-before pruning.

use super::{reads_from, Mcr, RfPair, DEFAULT_MAX_NODES};
use crate::ids::ObjId;
use crate::sim::programs;
use crate::sim::{search, Cmp, Ins, Program, Val};
use crate::strategy::icb::Icb;
use crate::strategy::partition::Partition;
use crate::strategy::{Dfs, ExecutionSummary, Pick, Stop, Strategy, View};
use crate::{Config, Execution, RandomSource, SeededRandom, ThreadId};
use std::collections::BTreeSet;

/// Runs a strategy and keeps the reads-from combination of every execution.
struct Combos<S> {
    inner: S,
    seen: Vec<Vec<RfPair>>,
}

impl<S: Strategy> Strategy for Combos<S> {
    fn begin_execution(&mut self, index: u64) {
        self.inner.begin_execution(index)
    }
    fn pick(&mut self, view: &View<'_>) -> Pick {
        self.inner.pick(view)
    }
    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.inner.pick_waiter(obj, waiters)
    }
    fn skipped(&mut self, thread: ThreadId, steps: u64) -> Result<(), Stop> {
        self.inner.skipped(thread, steps)
    }
    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        let mut combo = reads_from(summary.events);
        combo.sort();
        self.seen.push(combo);
        self.inner.end_execution(summary)
    }
}

fn combos<S: Strategy>(program: &Program, strategy: S) -> (Vec<Vec<RfPair>>, bool) {
    let mut run = Combos {
        inner: strategy,
        seen: Vec::new(),
    };
    let report = search(program, Config::default(), &mut run, 1_000_000, false).unwrap();
    (run.seen, report.exhausted)
}

/// Executions ICB with happens-before pruning needs to finish every preemption bound.
fn icb_executions(program: &Program) -> u64 {
    let report = search(
        program,
        Config::default(),
        Icb::new(20, true),
        1_000_000,
        false,
    )
    .unwrap();
    assert!(report.exhausted, "{}: ICB did not finish", program.name);
    report.executions
}

/// Checks MCR against brute force on `program`: the same reads-from combinations, each run once
/// unless `repeats` allows more executions than combinations. Returns (MCR's executions,
/// ICB's).
fn check(program: &Program, repeats: u64) -> (u64, u64) {
    let (all, done) = combos(program, Dfs::new());
    assert!(done, "{}: DFS did not finish", program.name);
    let reachable: BTreeSet<Vec<RfPair>> = all.into_iter().collect();
    let mut mcr = Mcr::new(DEFAULT_MAX_NODES, true);
    let (ran, done) = combos(program, &mut mcr);
    assert!(
        done && mcr.complete(),
        "{}: MCR did not finish",
        program.name
    );
    let distinct: BTreeSet<Vec<RfPair>> = ran.iter().cloned().collect();
    assert_eq!(
        ran.len() as u64,
        distinct.len() as u64 + repeats,
        "{}: MCR's executions and distinct reads-from combinations",
        program.name
    );
    assert_eq!(
        distinct, reachable,
        "{}: MCR's combinations differ from brute force's",
        program.name
    );
    assert_eq!(
        (mcr.unsolved().1, mcr.divergences()),
        (0, 0),
        "{}",
        program.name
    );
    (ran.len() as u64, icb_executions(program))
}

fn body(ins: &[Ins]) -> Vec<Ins> {
    ins.to_vec()
}

/// Three threads over x and y, with branches on what they read: 1 writes x then reads y; 2
/// writes y then reads x and, if it saw 0, writes x again; 3 reads x and y.
fn three_threads() -> Program {
    use Ins::*;
    Program {
        name: "three-threads",
        vars: vec![0, 0],
        bodies: vec![
            body(&[Start(1), Start(2), Start(3), Join(1), Join(2), Join(3)]),
            body(&[
                Write {
                    var: 0,
                    val: Val::Const(1),
                },
                Read { var: 1, reg: 0 },
            ]),
            body(&[
                Write {
                    var: 1,
                    val: Val::Const(1),
                },
                Read { var: 0, reg: 0 },
                JumpIf {
                    reg: 0,
                    cmp: Cmp::Ne,
                    val: Val::Const(0),
                    to: 4,
                },
                Write {
                    var: 0,
                    val: Val::Const(2),
                },
            ]),
            body(&[Read { var: 0, reg: 0 }, Read { var: 1, reg: 1 }]),
        ],
    }
}

#[test]
fn mcr_runs_each_reads_from_combination_of_the_bug_programs_once() {
    // Three threads: two sibling items leave each other's reads free, and 7 of their
    // continuations meet a combination run before (a limit the module doc states).
    let cases = [
        (programs::lost_update(false), 0),
        (programs::lost_update(true), 0),
        (programs::atomicity_violation(false), 0),
        (programs::atomicity_violation(true), 0),
        (three_threads(), 7),
    ];
    for (p, repeats) in &cases {
        let (mcr, icb) = check(p, *repeats);
        eprintln!(
            "{}: MCR {mcr} executions, ICB with HB pruning {icb}",
            p.name
        );
        assert!(mcr < icb, "{}: MCR {mcr} >= ICB {icb}", p.name);
    }
}

#[test]
fn mcr_finds_the_bugs_that_need_another_write_or_lock_order() {
    for p in [
        programs::lost_update(false),
        programs::atomicity_violation(false),
        nested_locks_only(),
    ] {
        let report = search(
            &p,
            Config::default(),
            Mcr::new(DEFAULT_MAX_NODES, true),
            1_000,
            true,
        );
        assert!(report.unwrap().first_bug.is_some(), "{}", p.name);
    }
    let fixed = search(
        &programs::lost_update(true),
        Config::default(),
        Mcr::new(DEFAULT_MAX_NODES, true),
        1_000,
        false,
    )
    .unwrap();
    assert!(fixed.exhausted && fixed.bugs == 0);
}

/// Two threads take two monitors in opposite orders and touch no data: the deadlock is the
/// same reads-from combination as a clean run, so only a lock-order item finds it.
fn nested_locks_only() -> Program {
    use Ins::*;
    Program {
        name: "nested-locks-only",
        vars: vec![],
        bodies: vec![
            body(&[Start(1), Start(2), Join(1), Join(2)]),
            body(&[Lock(0), Lock(1), Unlock(1), Unlock(0)]),
            body(&[Lock(1), Lock(0), Unlock(0), Unlock(1)]),
        ],
    }
}

/// A random program of 2 or 3 workers, each a few reads, writes, locked increments and
/// branches on what it read, over two variables.
fn random_program(rng: &mut SeededRandom) -> Program {
    use Ins::*;
    let workers = 2 + rng.below(2) as u32;
    let mut bodies = vec![Vec::new()];
    for _ in 0..workers {
        let mut v: Vec<Ins> = Vec::new();
        for _ in 0..if workers == 3 { 1 } else { 1 + rng.below(2) } {
            let var = rng.below(2) as u32;
            // Three workers with a locked section have too many interleavings for brute force.
            let op = rng.below(4);
            match if workers == 3 && op == 2 { 3 } else { op } {
                0 => v.push(Read { var, reg: 0 }),
                1 => v.push(Write {
                    var,
                    val: Val::RegPlus(0, 1),
                }),
                2 => v.extend([
                    Lock(0),
                    Read { var, reg: 0 },
                    Write {
                        var,
                        val: Val::RegPlus(0, 1),
                    },
                    Unlock(0),
                ]),
                _ => {
                    let to = v.len() as u32 + 3;
                    v.extend([
                        Read { var, reg: 1 },
                        JumpIf {
                            reg: 1,
                            cmp: Cmp::Eq,
                            val: Val::Const(0),
                            to,
                        },
                        Write {
                            var: 1 - var,
                            val: Val::Const(5),
                        },
                    ]);
                }
            }
        }
        bodies.push(v);
    }
    bodies[0] = (1..=workers)
        .map(Start)
        .chain((1..=workers).map(Join))
        .chain([Read { var: 0, reg: 0 }])
        .collect();
    Program {
        name: "random",
        vars: vec![0, 0],
        bodies,
    }
}

#[test]
fn mcr_matches_brute_force_on_random_programs() {
    let mut rng = SeededRandom::new(2015);
    let (mut mcr_total, mut icb_total) = (0, 0);
    for _ in 0..40 {
        let p = random_program(&mut rng);
        let (mcr, icb) = check(&p, 0);
        assert!(mcr <= icb, "{p:?}: MCR {mcr} > ICB {icb}");
        mcr_total += mcr;
        icb_total += icb;
    }
    eprintln!("40 random programs: MCR {mcr_total} executions, ICB with HB pruning {icb_total}");
    assert!(mcr_total < icb_total);
}

/// One execution of a part: its order key, schedule and reads-from combination.
type PartRun = (Vec<u64>, String, Vec<RfPair>);

/// Runs MCR restricted to `partition` to its end, its executions in the order it ran them.
fn run_part(program: &Program, dedup: bool, partition: Option<Partition>) -> Vec<PartRun> {
    let strategy = Combos {
        inner: Mcr::new(DEFAULT_MAX_NODES, dedup).with_partition(partition),
        seen: Vec::new(),
    };
    let mut exec = Execution::new(Config::default(), strategy);
    let mut out = Vec::new();
    loop {
        crate::sim::run_execution(&mut exec, program).expect("simulation");
        let more = exec.finish(false).expect("finish");
        let key = exec.strategy().inner.last_order_key().unwrap_or_default();
        let combo = exec.strategy().seen.last().cloned().unwrap_or_default();
        out.push((key.to_vec(), exec.schedule().to_text(), combo));
        if !more {
            assert!(exec.strategy().inner.exhausted());
            return out;
        }
        exec.restart().expect("restart");
    }
}

/// The parts' executions as a merge of shards puts them back: by order key, the first (every
/// part's) once.
fn merged(parts: Vec<Vec<PartRun>>) -> Vec<PartRun> {
    let mut all: Vec<_> = parts.into_iter().flatten().collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all.dedup_by(|a, b| a.0 == b.0);
    all
}

fn partition_programs() -> Vec<Program> {
    let mut rng = SeededRandom::new(21);
    let mut v = vec![
        three_threads(),
        programs::lost_update(false),
        programs::atomicity_violation(false),
        nested_locks_only(),
    ];
    v.extend((0..12).map(|_| random_program(&mut rng)));
    v
}

#[test]
fn partitions_without_dedup_run_exactly_the_whole_searchs_prefixes_in_its_order() {
    for program in partition_programs() {
        let one = run_part(&program, false, Partition::parse("1/1").ok());
        let keys: Vec<&Vec<u64>> = one.iter().map(|r| &r.0).collect();
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "{}: the order keys do not sort as the search ran: {keys:?}",
            program.name
        );
        let whole: Vec<String> = run_part(&program, false, None)
            .into_iter()
            .map(|r| r.1)
            .collect();
        let one: Vec<&String> = one.iter().map(|r| &r.1).collect();
        assert_eq!(
            one,
            whole.iter().collect::<Vec<_>>(),
            "{}: 1/1",
            program.name
        );
        for n in 2..=4 {
            let runs: Vec<_> = (1..=n)
                .map(|i| run_part(&program, false, Partition::parse(&format!("{i}/{n}")).ok()))
                .collect();
            let sizes: Vec<usize> = runs.iter().map(Vec::len).collect();
            let back: Vec<String> = merged(runs).into_iter().map(|r| r.1).collect();
            assert_eq!(back, whole, "{} in {n} parts {sizes:?}", program.name);
        }
    }
}

#[test]
fn partitions_with_dedup_run_every_reads_from_combination() {
    for program in partition_programs() {
        let whole: BTreeSet<Vec<RfPair>> = run_part(&program, true, None)
            .into_iter()
            .map(|r| r.2)
            .collect();
        for n in 2..=3 {
            let runs: Vec<_> = (1..=n)
                .map(|i| run_part(&program, true, Partition::parse(&format!("{i}/{n}")).ok()))
                .collect();
            let back: BTreeSet<Vec<RfPair>> = merged(runs).into_iter().map(|r| r.2).collect();
            assert_eq!(back, whole, "{} in {n} parts", program.name);
        }
    }
}

/// Two threads each add 1 to a shared counter 12,000 times without a lock: a trace of about
/// 48,000 events. MCR runs it but does not derive its alternatives (every read against every
/// write), and says so instead of claiming every combination.
#[test]
fn a_trace_too_long_to_expand_is_run_and_said_to_be_left_out() {
    use Ins::*;
    let worker = vec![
        Read { var: 0, reg: 0 },
        Write {
            var: 0,
            val: Val::RegPlus(0, 1),
        },
        Read { var: 1, reg: 1 },
        Write {
            var: 1,
            val: Val::RegPlus(1, 1),
        },
        JumpIf {
            reg: 1,
            cmp: Cmp::Lt,
            val: Val::Const(12_000),
            to: 0,
        },
    ];
    let program = Program {
        name: "long-counter",
        vars: vec![0, 0],
        bodies: vec![
            vec![Start(1), Start(2), Join(1), Join(2)],
            worker.clone(),
            worker,
        ],
    };
    let mut mcr = Mcr::new(DEFAULT_MAX_NODES, true);
    let report = search(&program, Config::default(), &mut mcr, 10, false).unwrap();
    assert!(
        report.exhausted && mcr.exhausted(),
        "one execution, nothing derived"
    );
    assert_eq!(report.executions, 1);
    assert!(!mcr.complete());
    assert_eq!(mcr.last_shortfall().undecided, 1);
    assert!(
        mcr.coverage().contains("not exhausted"),
        "{}",
        mcr.coverage()
    );
}
