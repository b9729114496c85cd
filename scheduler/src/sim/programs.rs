//! Small programs with known concurrency bugs, each with its fixed version.

use super::{Cmp, Ins, Program, Val};

use Ins::*;

/// A program with a known bug and the same program fixed.
#[derive(Clone, Debug)]
pub struct BugCase {
    pub name: &'static str,
    pub buggy: Program,
    pub fixed: Program,
    /// The bug shows only with spurious wake-ups on.
    pub needs_spurious: bool,
    /// A PCT depth at which the bug is found.
    pub depth: u32,
}

fn r(reg: u8) -> Val {
    Val::Reg(reg)
}

fn k(c: i64) -> Val {
    Val::Const(c)
}

fn program(name: &'static str, vars: usize, bodies: Vec<Vec<Ins>>) -> Program {
    Program {
        name,
        vars: vec![0; vars],
        bodies,
    }
}

/// Main starts bodies `1..=n`, then joins them, then runs `tail`.
fn main_starting(n: u32, tail: &[Ins]) -> Vec<Ins> {
    let mut v: Vec<Ins> = (1..=n).map(Start).collect();
    v.extend((1..=n).map(Join));
    v.extend_from_slice(tail);
    v
}

/// Two threads do `x = x + 1`; main asserts `x == 2`. Fixed: the increment under a lock.
pub fn lost_update(fixed: bool) -> Program {
    const X: u32 = 0;
    let tail = [
        Read { var: X, reg: 0 },
        Assert {
            reg: 0,
            cmp: Cmp::Eq,
            val: k(2),
            msg: "lost update: x != 2",
        },
    ];
    let inc = [
        Read { var: X, reg: 0 },
        Write {
            var: X,
            val: Val::RegPlus(0, 1),
        },
    ];
    let worker: Vec<Ins> = if fixed {
        [vec![Lock(0)], inc.to_vec(), vec![Unlock(0)]].concat()
    } else {
        inc.to_vec()
    };
    let name = if fixed {
        "lost-update-fixed"
    } else {
        "lost-update"
    };
    program(
        name,
        1,
        vec![main_starting(2, &tail), worker.clone(), worker],
    )
}

/// Check-then-act: one thread checks `p != 0` and then uses `p`; another sets `p = 0` in
/// between. Fixed: both under one lock.
pub fn atomicity_violation(fixed: bool) -> Program {
    const P: u32 = 0;
    let checker = |base: u32| {
        vec![
            Read { var: P, reg: 0 },
            JumpIf {
                reg: 0,
                cmp: Cmp::Eq,
                val: k(0),
                to: base + 4,
            },
            Read { var: P, reg: 1 },
            Assert {
                reg: 1,
                cmp: Cmp::Ne,
                val: k(0),
                msg: "p became 0 between check and use",
            },
        ]
    };
    let clear = vec![Write { var: P, val: k(0) }];
    let (t1, t2) = if fixed {
        (
            [vec![Lock(0)], checker(1), vec![Unlock(0)]].concat(),
            [vec![Lock(0)], clear, vec![Unlock(0)]].concat(),
        )
    } else {
        (checker(0), clear)
    };
    let mut p = program(
        if fixed {
            "atomicity-fixed"
        } else {
            "atomicity"
        },
        1,
        vec![main_starting(2, &[]), t1, t2],
    );
    p.vars[P as usize] = 1;
    p
}

/// `lock; while (flag == 0) wait;` (or `if` instead of `while`), with `flag` the variable
/// `var`; the monitor is still held at the end.
fn wait_for(var: u32, use_while: bool) -> Vec<Ins> {
    let after_wait = if use_while { 5 } else { 4 };
    let mut v = vec![
        Lock(0),
        Read { var, reg: 0 },
        JumpIf {
            reg: 0,
            cmp: Cmp::Ne,
            val: k(0),
            to: after_wait,
        },
        Wait(0),
    ];
    if use_while {
        v.push(Goto(1));
    }
    v
}

/// Two threads wait on one monitor for two different flags; main sets each flag with `notify`,
/// which may wake the thread waiting for the other flag, leaving one waiting forever (deadlock).
/// Fixed: `notifyAll`.
pub fn notify_instead_of_notify_all(fixed: bool) -> Program {
    const A: u32 = 0;
    const B: u32 = 1;
    let waiter = |var| [wait_for(var, true), vec![Unlock(0)]].concat();
    let note = |m| if fixed { NotifyAll(m) } else { Notify(m) };
    let main = vec![
        Start(1),
        Start(2),
        Lock(0),
        Write { var: A, val: k(1) },
        note(0),
        Unlock(0),
        Lock(0),
        Write { var: B, val: k(1) },
        note(0),
        Unlock(0),
        Join(1),
        Join(2),
    ];
    program(
        if fixed { "notify-fixed" } else { "notify" },
        2,
        vec![main, waiter(A), waiter(B)],
    )
}

/// A consumer guards `wait` with `if` instead of `while`. The monitor also signals a second
/// condition (`flag`) with `notifyAll`, which can wake the consumer while the buffer is still
/// empty; it then takes an item that is not there. Fixed: `while`.
pub fn if_instead_of_while(fixed: bool) -> Program {
    const COUNT: u32 = 0;
    const FLAG: u32 = 1;
    let consumer = [
        wait_for(COUNT, fixed),
        vec![
            Read { var: COUNT, reg: 0 },
            Assert {
                reg: 0,
                cmp: Cmp::Gt,
                val: k(0),
                msg: "consumed from an empty buffer",
            },
            Write {
                var: COUNT,
                val: Val::RegPlus(0, -1),
            },
            Unlock(0),
        ],
    ]
    .concat();
    let main = vec![
        Start(1),
        Lock(0),
        Write {
            var: FLAG,
            val: k(1),
        },
        NotifyAll(0),
        Unlock(0),
        Lock(0),
        Read { var: COUNT, reg: 0 },
        Write {
            var: COUNT,
            val: Val::RegPlus(0, 1),
        },
        NotifyAll(0),
        Unlock(0),
        Join(1),
    ];
    program(
        if fixed { "if-wait-fixed" } else { "if-wait" },
        2,
        vec![main, consumer],
    )
}

/// Two threads take two locks in opposite orders. Fixed: the same order.
pub fn lock_order_deadlock(fixed: bool) -> Program {
    let t1 = vec![Lock(0), Lock(1), Unlock(1), Unlock(0)];
    let t2 = if fixed {
        t1.clone()
    } else {
        vec![Lock(1), Lock(0), Unlock(0), Unlock(1)]
    };
    program(
        if fixed {
            "lock-order-fixed"
        } else {
            "lock-order"
        },
        0,
        vec![main_starting(2, &[]), t1, t2],
    )
}

/// A consumer guards `wait` with `if`; the only notify comes after `ready = 1`, so only a
/// spurious wake-up lets it proceed while `ready == 0`. Fixed: `while`.
pub fn needs_spurious_wakeup(fixed: bool) -> Program {
    const READY: u32 = 0;
    let consumer = [
        wait_for(READY, fixed),
        vec![
            Read { var: READY, reg: 1 },
            Assert {
                reg: 1,
                cmp: Cmp::Eq,
                val: k(1),
                msg: "woke up before ready",
            },
            Unlock(0),
        ],
    ]
    .concat();
    let producer = vec![
        Lock(0),
        Write {
            var: READY,
            val: k(1),
        },
        Notify(0),
        Unlock(0),
    ];
    program(
        if fixed { "spurious-fixed" } else { "spurious" },
        1,
        vec![main_starting(2, &[]), consumer, producer],
    )
}

/// A depth-1 ordering bug among `1 + extra` threads: main reads `x` right after starting the
/// thread that initializes it (and `extra` threads that touch another variable).
pub fn use_before_init(extra: u32) -> Program {
    const X: u32 = 0;
    const Y: u32 = 1;
    let mut main: Vec<Ins> = (1..=extra + 1).map(Start).collect();
    main.push(Read { var: X, reg: 0 });
    main.push(Assert {
        reg: 0,
        cmp: Cmp::Eq,
        val: k(1),
        msg: "x read before it was initialized",
    });
    main.extend((1..=extra + 1).map(Join));
    let mut bodies = vec![main, vec![Write { var: X, val: k(1) }]];
    for _ in 0..extra {
        bodies.push(vec![Read { var: Y, reg: 0 }, Write { var: Y, val: r(0) }]);
    }
    program("use-before-init", 2, bodies)
}

/// Every bug case, in a fixed order.
pub fn all() -> Vec<BugCase> {
    let case = |name, f: fn(bool) -> Program, needs_spurious, depth| BugCase {
        name,
        buggy: f(false),
        fixed: f(true),
        needs_spurious,
        depth,
    };
    vec![
        case("lost-update", lost_update, false, 2),
        case("atomicity", atomicity_violation, false, 2),
        case("notify", notify_instead_of_notify_all, false, 3),
        case("if-wait", if_instead_of_while, false, 3),
        case("lock-order", lock_order_deadlock, false, 2),
        case("spurious", needs_spurious_wakeup, true, 1),
    ]
}
