//! The announce path does not allocate in the steady state: once one execution has sized the
//! buffers (candidates, schedule runs, event record, monitor table), a second execution of the
//! same program performs its ~100,000 steps with a handful of allocations, not one per step.
//! (Counts allocations with a counting global allocator; times nothing.)

use scheduler::sim::{self, Cmp, Ins, Program, Val};
use scheduler::strategy::RandomWalk;
use scheduler::{Config, Execution};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Each worker: 5,000 times { lock; x = x + 1; unlock; yield }.
fn busy_program() -> Program {
    use Ins::*;
    let worker = vec![
        Set {
            reg: 1,
            val: Val::Const(0),
        },
        Lock(0),
        Read { var: 0, reg: 0 },
        Write {
            var: 0,
            val: Val::RegPlus(0, 1),
        },
        Unlock(0),
        Yield,
        Set {
            reg: 1,
            val: Val::RegPlus(1, 1),
        },
        JumpIf {
            reg: 1,
            cmp: Cmp::Lt,
            val: Val::Const(5_000),
            to: 1,
        },
    ];
    Program {
        name: "busy",
        vars: vec![0],
        bodies: vec![
            vec![
                Start(1),
                Start(2),
                Start(3),
                Start(4),
                Join(1),
                Join(2),
                Join(3),
                Join(4),
            ],
            worker.clone(),
            worker.clone(),
            worker.clone(),
            worker,
        ],
    }
}

#[test]
fn a_warm_execution_allocates_a_handful_of_times_not_per_step() {
    let program = busy_program();
    let config = Config {
        max_steps: 1_000_000,
        ..Config::default()
    };
    let mut exec = Execution::new(config, RandomWalk::new(1));
    // Warm-up execution sizes every buffer.
    assert_eq!(
        sim::run_execution(&mut exec, &program),
        Ok(sim::Outcome::Pass)
    );
    exec.finish(false).unwrap();
    exec.restart().unwrap();

    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let outcome = sim::run_execution(&mut exec, &program);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(outcome, Ok(sim::Outcome::Pass));
    let steps = exec.steps();
    eprintln!("{allocations} allocations for {steps} steps");
    assert!(steps > 100_000, "{steps} steps");
    assert!(
        allocations < 64,
        "{allocations} allocations for {steps} steps"
    );
}
