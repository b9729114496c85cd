//! Helpers shared by the `strategies_*` test binaries: a recording wrapper, a driver that keeps
//! every execution's outcome, a final-state probe for simulated programs, and the RankChecker
//! paper's example programs.
#![allow(dead_code)]

use scheduler::sim::{self, Cmp, Ins, Outcome, Program, Val};
use scheduler::strategy::{ExecutionSummary, Pick, Strategy, View};
use scheduler::{Config, Execution, ObjId, ThreadId};

/// Wraps a strategy and counts the preemptions of the current execution.
pub struct Counting<S> {
    pub inner: S,
    pub preemptions: u32,
}

impl<S: Strategy> Strategy for Counting<S> {
    fn begin_execution(&mut self, index: u64) {
        self.preemptions = 0;
        self.inner.begin_execution(index);
    }
    fn pick(&mut self, view: &View<'_>) -> Pick {
        let t = self.inner.pick(view)?;
        if view.is_preemption(t) {
            self.preemptions += 1;
        }
        Ok(t)
    }
    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        self.inner.pick_waiter(obj, waiters)
    }
    fn end_execution(&mut self, summary: &ExecutionSummary<'_>) -> bool {
        self.inner.end_execution(summary)
    }
}

/// One finished execution.
#[derive(Clone, Debug)]
pub struct Run {
    pub schedule: String,
    pub preemptions: u32,
    pub outcome: Outcome,
}

/// Runs `strategy` on `program` until it wants no more executions or `budget` runs; every run.
/// The executions of a partitioned search's parts put back together as a merge of shards
/// does: sorted by order key (`key`), the first execution (which every part runs) once.
pub fn merged_by_key<T>(parts: Vec<Vec<T>>, key: impl Fn(&T) -> &Vec<u64>) -> Vec<T> {
    let mut all: Vec<T> = parts.into_iter().flatten().collect();
    all.sort_by(|a, b| key(a).cmp(key(b)));
    all.dedup_by(|a, b| key(a) == key(b));
    all
}

pub fn run_all<S: Strategy>(
    program: &Program,
    config: Config,
    strategy: S,
    budget: u64,
) -> (Vec<Run>, S, bool) {
    let mut exec = Execution::new(
        config,
        Counting {
            inner: strategy,
            preemptions: 0,
        },
    );
    let mut runs = Vec::new();
    let mut exhausted = false;
    loop {
        let outcome = sim::run_execution(&mut exec, program).expect("simulation");
        let bug = outcome.is_bug();
        runs.push(Run {
            schedule: exec.schedule().to_text(),
            preemptions: exec.strategy().preemptions,
            outcome,
        });
        if !exec.finish(bug).expect("finish") {
            exhausted = true;
            break;
        }
        if runs.len() as u64 >= budget {
            break;
        }
        exec.restart().expect("restart");
    }
    (runs, exec.into_strategy().inner, exhausted)
}

/// Index (0-based) of the first failing execution, if any.
pub fn first_bug(runs: &[Run]) -> Option<usize> {
    runs.iter().position(|r| r.outcome.is_bug())
}

/// `program` with a probe appended to the main body (which must end after joining every
/// thread): it reads `vars` and ends the execution with a failed assertion whose message names
/// their values (each in `0..range`), so the outcome *is* the final state.
pub fn with_final_state(program: &Program, vars: &[u32], range: i64) -> Program {
    assert!(vars.len() <= 3, "registers 0..3 hold the probe");
    let mut p = program.clone();
    let main = &mut p.bodies[0];
    for (i, &v) in vars.iter().enumerate() {
        main.push(Ins::Read {
            var: v,
            reg: i as u8,
        });
    }
    // Register 3 = Σ value_i · range^i, built with jumps (the simulator has no multiply).
    main.push(Ins::Set {
        reg: 3,
        val: Val::Const(0),
    });
    let mut scale = 1;
    for i in 0..vars.len() {
        for value in 1..range {
            let skip = main.len() as u32 + 2;
            main.push(Ins::JumpIf {
                reg: i as u8,
                cmp: Cmp::Ne,
                val: Val::Const(value),
                to: skip,
            });
            main.push(Ins::Set {
                reg: 3,
                val: Val::RegPlus(3, value * scale),
            });
        }
        scale *= range;
    }
    let states = scale;
    for code in 0..states {
        let message: &'static str = Box::leak(format!("final state {code}").into_boxed_str());
        let next = main.len() as u32 + 2;
        main.push(Ins::JumpIf {
            reg: 3,
            cmp: Cmp::Ne,
            val: Val::Const(code),
            to: next,
        });
        main.push(Ins::Assert {
            reg: 3,
            cmp: Cmp::Ne,
            val: Val::Const(code),
            msg: message,
        });
    }
    p
}

fn k(c: i64) -> Val {
    Val::Const(c)
}

/// Main starts bodies `1..=n` and joins them.
fn main_starting(n: u32) -> Vec<Ins> {
    let mut v: Vec<Ins> = (1..=n).map(Ins::Start).collect();
    v.extend((1..=n).map(Ins::Join));
    v
}

fn prog(name: &'static str, vars: usize, bodies: Vec<Vec<Ins>>) -> Program {
    Program {
        name,
        vars: vec![0; vars],
        bodies,
    }
}

const A: u32 = 0;
const B: u32 = 1;

fn read(var: u32, reg: u8) -> Ins {
    Ins::Read { var, reg }
}
fn write(var: u32, val: Val) -> Ins {
    Ins::Write { var, val }
}
fn inc(var: u32) -> [Ins; 2] {
    [read(var, 0), write(var, Val::RegPlus(0, 1))]
}
fn assert(reg: u8, cmp: Cmp, val: Val, msg: &'static str) -> Ins {
    Ins::Assert { reg, cmp, val, msg }
}

/// A program from the RankChecker paper with the bounds the paper gives its bug.
pub struct PaperProgram {
    pub figure: u32,
    pub program: Program,
    pub c: u32,
    pub v: u32,
    pub t: u32,
}

/// Figures 1–4 and 8–10 of the RankChecker paper (variables `a` = 0, `b` = 1; `a++` is a read
/// and a write, as in Java bytecode). Main starts the threads and joins them.
pub fn paper_programs() -> Vec<PaperProgram> {
    let fig1 = prog(
        "rankchecker-fig1",
        1,
        vec![
            main_starting(2),
            vec![read(A, 0), assert(0, Cmp::Eq, k(0), "fig1: a != 0")],
            inc(A).to_vec(),
        ],
    );
    let fig2 = prog(
        "rankchecker-fig2",
        1,
        vec![
            main_starting(2),
            vec![
                read(A, 0),
                read(A, 1),
                assert(0, Cmp::Eq, Val::Reg(1), "fig2: t1 != t2"),
            ],
            inc(A).to_vec(),
        ],
    );
    let fig3 = prog(
        "rankchecker-fig3",
        1,
        vec![
            main_starting(2),
            vec![
                read(A, 0),
                read(A, 1),
                assert(0, Cmp::Eq, Val::Reg(1), "fig3: t1 != t2"),
            ],
            vec![write(A, k(1)), write(A, k(0))],
        ],
    );
    // ASSERT(t1 == t2 || t3 != 1): jump over the assertion when t1 == t2.
    let fig4 = prog(
        "rankchecker-fig4",
        2,
        vec![
            main_starting(2),
            vec![
                read(A, 0),
                read(A, 1),
                read(B, 2),
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Eq,
                    val: Val::Reg(1),
                    to: 5,
                },
                assert(2, Cmp::Ne, k(1), "fig4: t1 != t2 and t3 == 1"),
            ],
            vec![write(A, k(1)), write(B, k(1)), write(B, k(0))],
        ],
    );
    let fig8 = prog(
        "rankchecker-fig8",
        1,
        vec![
            main_starting(3),
            inc(A).to_vec(),
            inc(A).to_vec(),
            vec![read(A, 0), assert(0, Cmp::Ne, k(2), "fig8: a == 2")],
        ],
    );
    // ASSERT(t2 <= t1 + 1): both increments between the two reads break it.
    let fig9 = prog(
        "rankchecker-fig9",
        1,
        vec![
            main_starting(3),
            vec![
                read(A, 0),
                read(A, 1),
                assert(1, Cmp::Le, Val::RegPlus(0, 1), "fig9: t2 > t1 + 1"),
            ],
            inc(A).to_vec(),
            inc(A).to_vec(),
        ],
    );
    let fig10 = prog(
        "rankchecker-fig10",
        2,
        vec![
            main_starting(3),
            vec![
                read(A, 0),
                read(A, 1),
                read(B, 2),
                read(B, 3),
                Ins::JumpIf {
                    reg: 0,
                    cmp: Cmp::Eq,
                    val: Val::Reg(1),
                    to: 6,
                },
                assert(2, Cmp::Eq, Val::Reg(3), "fig10: t1 != t2 and t3 != t4"),
            ],
            inc(A).to_vec(),
            inc(B).to_vec(),
        ],
    );
    let p = |figure, program, c, v, t| PaperProgram {
        figure,
        program,
        c,
        v,
        t,
    };
    vec![
        p(1, fig1, 0, 1, 2),
        p(2, fig2, 1, 1, 2),
        p(3, fig3, 2, 1, 2),
        p(4, fig4, 2, 2, 2),
        p(8, fig8, 0, 1, 3),
        p(9, fig9, 1, 1, 3),
        p(10, fig10, 2, 2, 3),
    ]
}

/// Threads that touch only their own variables: every interleaving reaches the same state.
pub fn independent_writers(threads: u32, writes: u32) -> Program {
    let bodies: Vec<Vec<Ins>> = std::iter::once(main_starting(threads))
        .chain((0..threads).map(|t| (0..writes).map(|i| write(t, k(i as i64 + 1))).collect()))
        .collect();
    prog("independent-writers", threads as usize, bodies)
}

/// A worker that starts a watcher, writes `x` (var 0), then writes `y` (var 3) under a lock;
/// the watcher, under that lock, asks for the worker's state (`getState()`) and reads `y`, and
/// writes both to vars 1 and 2. Whether it sees the worker runnable or blocked depends on
/// whether the write of `x` came before the query, which no happens-before edge orders: only
/// the answer in the query's label tells those states apart.
pub fn state_watcher() -> Program {
    prog(
        "state-watcher",
        4,
        vec![
            vec![Ins::Start(1), Ins::Join(1), Ins::Join(2)],
            vec![
                Ins::Start(2),
                write(0, k(1)),
                Ins::Lock(0),
                write(3, k(1)),
                Ins::Unlock(0),
            ],
            vec![
                Ins::Lock(0),
                Ins::State { body: 1, reg: 0 },
                read(3, 1),
                Ins::Unlock(0),
                write(1, Val::Reg(0)),
                write(2, Val::Reg(1)),
            ],
        ],
    )
}

/// Two incrementers of a shared `x` (var 0), each also writing a private variable twice.
pub fn mixed_counter() -> Program {
    let worker = |own: u32| {
        vec![
            write(own, k(1)),
            read(0, 0),
            write(0, Val::RegPlus(0, 1)),
            write(own, k(2)),
        ]
    };
    prog(
        "mixed-counter",
        3,
        vec![main_starting(2), worker(1), worker(2)],
    )
}

/// The running example of the POS paper (Yuan, Yang, Gu, CAV 2018, Fig. 2), one sim event per
/// paper statement. `x`, `y`, `z` = vars 0, 1, 2; `signal(w)`/`wait(w)` = unpark/park of B.
/// A is the main thread and starts B first (the JVM has no threads that exist before `start`).
/// The assertion at A4 fails iff B1 < A1 < B2, B3 < A2 and B6 < A4, i.e. exactly along the
/// paper's order B1 A1 B2 B3 A2 A3 B4 B5 B6 A4:
/// - A: A1 `x = 2`; A2 `y = 10`; A3 `signal(w)`; A4 `r = z; assert r != 1`.
/// - B: B1 `x = 1`; B2 `r0 = x`; B3 `y = 20`; B4 `wait(w)`; B5 `r1 = y`;
///   B6 `z = (r0 == 2 && r1 == 10) ? 1 : 0`.
pub fn pos_running_example() -> Program {
    let (x, y, z) = (0, 1, 2);
    let a = vec![
        Ins::Start(1),
        write(x, k(2)),
        write(y, k(10)),
        Ins::Unpark(1),
        read(z, 0),
        assert(0, Cmp::Ne, k(1), "POS Fig. 2: z == 1 at A4"),
    ];
    let b = vec![
        write(x, k(1)),
        read(x, 0),
        write(y, k(20)),
        Ins::Park,
        read(y, 1),
        Ins::JumpIf {
            reg: 0,
            cmp: Cmp::Ne,
            val: k(2),
            to: 10,
        },
        Ins::JumpIf {
            reg: 1,
            cmp: Cmp::Ne,
            val: k(10),
            to: 10,
        },
        write(z, k(1)),
        Ins::Goto(11),
        Ins::Goto(11), // (padding so the targets read plainly)
        write(z, k(0)),
    ];
    prog("pos-fig2", 3, vec![a, b])
}

/// Runs `strategy` until the first bug or `budget` executions: the 0-based index of the failing
/// execution, if any, and the strategy.
pub fn until_bug<S: Strategy>(
    program: &Program,
    config: Config,
    strategy: S,
    budget: u64,
) -> (Option<u64>, S) {
    let mut exec = Execution::new(config, strategy);
    for i in 0..budget {
        let outcome = sim::run_execution(&mut exec, program).expect("simulation");
        let bug = outcome.is_bug();
        let more = exec.finish(bug).expect("finish");
        if bug {
            return (Some(i), exec.into_strategy());
        }
        if !more {
            break;
        }
        exec.restart().expect("restart");
    }
    (None, exec.into_strategy())
}
