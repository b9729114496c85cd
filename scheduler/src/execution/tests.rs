use super::*;
use crate::ids::{Loc, VarId};
use crate::op::OpKind;
use crate::rng::{RandomSource, SeededRandom};
use crate::sim::{self, Cmp, Ins, Outcome, Program, Val};
use crate::strategy::{Dfs, Pick, RandomWalk};

/// Always the highest enabled thread id (a deterministic script for facade tests).
struct Highest;

impl Strategy for Highest {
    fn begin_execution(&mut self, _index: u64) {}
    fn pick(&mut self, view: &View<'_>) -> Pick {
        Ok(view.enabled.last().unwrap().thread)
    }
    fn end_execution(&mut self, _s: &ExecutionSummary<'_>) -> bool {
        true
    }
}

const M: ObjId = ObjId(7);
const T0: ThreadId = ThreadId(0);
const T1: ThreadId = ThreadId(1);

fn run(t: ThreadId, outcome: OpOutcome) -> Result<Decision, ExecError> {
    Ok(Decision::Run { thread: t, outcome })
}

fn normal(t: ThreadId) -> Result<Decision, ExecError> {
    run(t, OpOutcome::Normal)
}

#[test]
fn step_marks_number_the_events_and_flag_preemptions_only_when_asked() {
    let access = |write| Op::Access {
        loc: Loc(1),
        var: VarId(0),
        write,
        site: 3,
    };
    let mut e = Execution::new(Config::default(), Highest);
    assert_eq!(e.step_marks(), None, "searches keep no marks");
    e.record_steps(true);
    e.announce(T0, Op::Begin).unwrap();
    // main starts t1; Highest then always runs t1 while it can: main, still enabled, is
    // preempted at the start's outcome.
    assert_eq!(
        e.announce(T0, Op::Start { site: 1 }),
        run(T0, OpOutcome::Started(T1))
    );
    assert_eq!(e.announce(T0, access(true)), normal(T1));
    assert_eq!(e.announce(T1, access(false)), normal(T1));
    let marks = e.step_marks().unwrap();
    assert_eq!(marks.len(), e.events().len());
    let steps: Vec<u64> = marks.iter().map(|m| m.step).collect();
    assert_eq!(steps, [1, 2, 3, 4]);
    let preempted: Vec<bool> = marks.iter().map(|m| m.preempted).collect();
    assert_eq!(preempted, [false, false, true, false]);
    e.finish(false).unwrap();
    e.restart().unwrap();
    assert_eq!(e.step_marks(), Some(&[][..]), "cleared with the events");
}

#[test]
fn interrupting_a_waiting_thread_wakes_it_with_the_flag_cleared() {
    let mut e = Execution::new(Config::default(), Highest);
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
    assert_eq!(
        e.announce(T0, Op::Start { site: 1 }),
        run(T0, OpOutcome::Started(T1))
    );
    let interrupt = Op::Interrupt {
        target: T1,
        site: 2,
    };
    assert_eq!(e.announce(T0, interrupt), normal(T1)); // T1's Begin
    assert_eq!(
        e.announce(T1, Op::MonitorEnter { obj: M, site: 3 }),
        normal(T1)
    );
    let wait = Op::Wait {
        obj: M,
        timed: false,
        nanos: 0,
        site: 4,
    };
    assert_eq!(e.announce(T1, wait), normal(T1));
    // Not notified: only T0 can go.
    assert_eq!(e.announce(T1, Op::WaitReturn { obj: M }), normal(T0));
    let join = Op::Join {
        target: T1,
        timed: false,
        nanos: 0,
        site: 5,
    };
    assert_eq!(e.announce(T0, join), run(T1, OpOutcome::Interrupted));
    let query = Op::Interrupted {
        clear: false,
        site: 6,
    };
    assert_eq!(e.announce(T1, query), run(T1, OpOutcome::Bool(false)));
    // T1 owns the monitor again (count 1): one exit frees it, a second is illegal.
    assert_eq!(
        e.announce(T1, Op::MonitorExit { obj: M, site: 7 }),
        normal(T1)
    );
    assert_eq!(
        e.announce(T1, Op::MonitorExit { obj: M, site: 8 }),
        run(T1, OpOutcome::IllegalMonitorState)
    );
    assert_eq!(e.announce(T1, Op::End), normal(T1));
    assert_eq!(e.thread_finished(T1), normal(T0)); // the join
    assert_eq!(e.announce(T0, Op::End), normal(T0));
    assert_eq!(e.thread_finished(T0), Ok(Decision::Finished));
    assert_eq!(e.ending(), Some(Ending::Finished));
    assert_eq!(e.announce(T0, Op::End), Err(ExecError::Ended));
    assert_eq!(e.finish(false), Ok(true));
    assert_eq!(e.finish(false), Err(ExecError::AlreadyFinished));
    e.restart().unwrap();
    assert_eq!(e.index(), 1);
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
}

#[test]
fn misuse_is_a_typed_error_and_changes_nothing() {
    let mut e = Execution::new(Config::default(), Highest);
    assert_eq!(
        e.announce(T1, Op::Begin),
        Err(ExecError::FirstCallNotMainBegin {
            thread: T1,
            op: Op::Begin
        })
    );
    assert_eq!(e.restart(), Err(ExecError::NotFinishedYet));
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
    assert_eq!(e.announce(T1, Op::End), Err(ExecError::UnknownThread(T1)));
    assert_eq!(
        e.announce(T0, Op::WaitReturn { obj: M }),
        Err(ExecError::NotWaiting { thread: T0, obj: M })
    );
    let join = Op::Join {
        target: ThreadId(9),
        timed: false,
        nanos: 0,
        site: 0,
    };
    assert_eq!(
        e.announce(T0, join),
        Err(ExecError::UnknownThread(ThreadId(9)))
    );
    assert_eq!(e.announce(T0, Op::Begin), Err(ExecError::BeginAgain(T0)));
    assert_eq!(e.thread_finished(T0), Err(ExecError::NotFinished(T0)));
    assert_eq!(e.steps(), 1);
    assert_eq!(
        e.announce(T0, Op::Start { site: 0 }),
        run(T0, OpOutcome::Started(T1))
    );
    // T1 has not been picked: it is not the running thread.
    assert_eq!(
        e.announce(T1, Op::End),
        Err(ExecError::NotRunning {
            thread: T1,
            running: Some(T0)
        })
    );
    // A waiting thread must announce WaitReturn next.
    assert_eq!(
        e.announce(T0, Op::MonitorEnter { obj: M, site: 0 }),
        normal(T1)
    );
    assert_eq!(e.announce(T1, Op::Yield { site: 0 }), normal(T1));
    assert_eq!(e.announce(T1, Op::End), normal(T1));
    assert_eq!(e.thread_finished(T1), normal(T0));
    let wait = Op::Wait {
        obj: M,
        timed: true,
        nanos: 0,
        site: 0,
    };
    assert_eq!(e.announce(T0, wait), normal(T0));
    assert!(matches!(
        e.announce(T0, Op::End),
        Err(ExecError::MustReturnFromWait { .. })
    ));
    // Timed: it may time out on its own.
    assert_eq!(
        e.announce(T0, Op::WaitReturn { obj: M }),
        run(T0, OpOutcome::TimedOut)
    );
    assert_eq!(
        e.announce(T0, Op::Exit { status: 3, site: 0 }),
        Ok(Decision::Exit { status: 3 })
    );
    assert_eq!(e.ending(), Some(Ending::Exit(3)));
}

/// A strategy that picks a thread that is not enabled.
struct Wrong;

impl Strategy for Wrong {
    fn begin_execution(&mut self, _index: u64) {}
    fn pick(&mut self, _view: &View<'_>) -> Pick {
        Ok(ThreadId(42))
    }
    fn end_execution(&mut self, _s: &ExecutionSummary<'_>) -> bool {
        false
    }
}

#[test]
fn a_strategy_picking_a_disabled_thread_is_an_error() {
    let mut e = Execution::new(Config::default(), Wrong);
    assert_eq!(
        e.announce(T0, Op::Begin),
        Err(ExecError::StrategyPickedDisabled(ThreadId(42)))
    );
}

fn prog(bodies: Vec<Vec<Ins>>) -> Program {
    Program {
        name: "test",
        vars: vec![0; 2],
        bodies,
    }
}

/// Every outcome of every schedule of `p` (brute force).
fn all_outcomes(p: &Program, config: Config) -> Vec<Outcome> {
    let mut exec = Execution::new(config, Dfs::new());
    let mut out = Vec::new();
    loop {
        let o = sim::run_execution(&mut exec, p).unwrap();
        let bug = o.is_bug();
        out.push(o);
        if !exec.finish(bug).unwrap() {
            return out;
        }
        exec.restart().unwrap();
    }
}

fn all_pass(p: &Program) -> bool {
    all_outcomes(p, Config::default())
        .iter()
        .all(|o| *o == Outcome::Pass)
}

fn all_deadlock(p: &Program) -> bool {
    all_outcomes(p, Config::default())
        .iter()
        .all(|o| matches!(o, Outcome::Deadlock { .. }))
}

use Ins::*;

#[test]
fn wait_restores_the_reentry_count() {
    let main = |exits: usize| {
        let mut v = vec![Lock(0), Lock(0), Start(1), Wait(0)];
        v.extend(std::iter::repeat_n(Unlock(0), exits));
        v
    };
    let notifier = vec![Lock(0), Notify(0), Unlock(0)];
    assert!(all_pass(&prog(vec![main(2), notifier.clone()])));
    // Restored to 2: a third exit throws.
    let outcomes = all_outcomes(&prog(vec![main(3), notifier.clone()]), Config::default());
    assert!(outcomes
        .iter()
        .all(|o| matches!(o, Outcome::IllegalMonitorState { thread: T0 })));
    // With only one exit main still holds the monitor when it ends: the count was 2.
    let p = prog(vec![
        [main(1), vec![Start(2), Join(2)]].concat(),
        notifier.clone(),
        notifier,
    ]);
    assert!(all_deadlock(&p));
}

#[test]
fn monitor_operations_without_ownership_are_illegal() {
    for ins in [Notify(0), NotifyAll(0), Wait(0), Unlock(0)] {
        let outcomes = all_outcomes(&prog(vec![vec![ins]]), Config::default());
        assert_eq!(outcomes, vec![Outcome::IllegalMonitorState { thread: T0 }]);
    }
    // Owning another monitor does not help.
    let outcomes = all_outcomes(&prog(vec![vec![Lock(1), Notify(0)]]), Config::default());
    assert_eq!(outcomes, vec![Outcome::IllegalMonitorState { thread: T0 }]);
}

#[test]
fn interrupts_wake_waiting_joining_and_parked_threads() {
    let waiter = vec![Lock(0), Wait(0), Unlock(0)];
    let parker = vec![Park];
    let joiner_of_main = vec![Join(0)];
    for body in [waiter, parker, joiner_of_main] {
        // Without the interrupt nobody wakes it.
        assert!(all_deadlock(&prog(vec![
            vec![Start(1), Join(1)],
            body.clone()
        ])));
        assert!(all_pass(&prog(vec![
            vec![Start(1), Interrupt(1), Join(1)],
            body
        ])));
    }
    // Sleep just returns (interrupted or not).
    assert!(all_pass(&prog(vec![
        vec![Start(1), Interrupt(1), Join(1)],
        vec![Sleep, Sleep]
    ])));
}

#[test]
fn unpark_before_or_after_park_lets_it_return() {
    assert!(all_pass(&prog(vec![
        vec![Start(1), Unpark(1), Join(1)],
        vec![Park]
    ])));
    // One permit, not two.
    assert!(all_deadlock(&prog(vec![
        vec![Start(1), Unpark(1), Join(1)],
        vec![Park, Park]
    ])));
}

#[test]
fn join_waits_for_the_target() {
    let main = vec![
        Start(1),
        Join(1),
        Read { var: 0, reg: 0 },
        Assert {
            reg: 0,
            cmp: Cmp::Eq,
            val: Val::Const(1),
            msg: "join returned early",
        },
    ];
    assert!(all_pass(&prog(vec![
        main,
        vec![Write {
            var: 0,
            val: Val::Const(1)
        }]
    ])));
}

#[test]
fn timed_waits_time_out_and_untimed_ones_deadlock() {
    assert!(all_pass(&prog(vec![vec![
        Lock(0),
        TimedWait(0),
        Unlock(0)
    ]])));
    let outcomes = all_outcomes(
        &prog(vec![vec![Lock(0), Wait(0), Unlock(0)]]),
        Config::default(),
    );
    assert_eq!(
        outcomes,
        vec![Outcome::Deadlock {
            blocked: vec![(T0, Op::WaitReturn { obj: ObjId(0) })]
        }]
    );
    // With spurious wake-ups on, an untimed wait may return by itself.
    let spurious = Config {
        spurious_wakeups: true,
        ..Config::default()
    };
    let outcomes = all_outcomes(&prog(vec![vec![Lock(0), Wait(0), Unlock(0)]]), spurious);
    assert_eq!(outcomes, vec![Outcome::Pass]);
}

#[test]
fn status_says_who_waits_for_what() {
    let mut e = Execution::new(Config::default(), Highest);
    e.announce(T0, Op::Begin).unwrap();
    e.announce(T0, Op::MonitorEnter { obj: M, site: 0 })
        .unwrap();
    assert_eq!(e.monitor(M), Some((T0, 1)));
    e.announce(T0, Op::Start { site: 0 }).unwrap();
    assert_eq!(e.status(T0), Some(ThreadStatus::Running));
    assert_eq!(e.status(T1), Some(ThreadStatus::Ready(Op::Begin)));
    let join = Op::Join {
        target: T1,
        timed: false,
        nanos: 0,
        site: 0,
    };
    assert_eq!(e.announce(T0, join), normal(T1));
    assert_eq!(e.status(T0), Some(ThreadStatus::Joining { target: T1 }));
    assert_eq!(
        e.announce(T1, Op::MonitorEnter { obj: M, site: 0 }),
        Ok(Decision::Deadlock {
            blocked: vec![(T0, join), (T1, Op::MonitorEnter { obj: M, site: 0 })]
        })
    );
    assert_eq!(
        e.status(T1),
        Some(ThreadStatus::BlockedOnMonitor {
            obj: M,
            owner: Some(T0)
        })
    );
    assert_eq!(e.status(ThreadId(5)), None);
}

#[test]
fn a_deadlock_lists_every_blocked_thread_and_its_pending_op() {
    let p = sim::programs::lock_order_deadlock(false);
    let deadlock = all_outcomes(&p, Config::default())
        .into_iter()
        .find(|o| matches!(o, Outcome::Deadlock { .. }))
        .unwrap();
    let Outcome::Deadlock { blocked } = deadlock else {
        unreachable!()
    };
    let kinds: Vec<(u32, OpKind, Option<ObjId>)> = blocked
        .iter()
        .map(|(t, op)| (t.0, op.kind(), op.obj()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (0, OpKind::Join, None),
            (1, OpKind::MonitorEnter, Some(ObjId(1))),
            (2, OpKind::MonitorEnter, Some(ObjId(0)))
        ]
    );
}

#[test]
fn a_spin_loop_hits_the_step_bound() {
    let spin = vec![
        Read { var: 0, reg: 0 },
        JumpIf {
            reg: 0,
            cmp: Cmp::Eq,
            val: Val::Const(0),
            to: 0,
        },
    ];
    let config = Config {
        max_steps: 50,
        ..Config::default()
    };
    let mut e = Execution::new(config, RandomWalk::new(0));
    assert_eq!(
        sim::run_execution(&mut e, &prog(vec![spin])),
        Ok(Outcome::StepBound)
    );
    assert_eq!(e.steps(), 50);
    assert_eq!(e.ending(), Some(Ending::StepBound));
}

#[test]
fn the_event_record_has_one_event_per_step() {
    let mut e = Execution::new(Config::default(), RandomWalk::new(4));
    sim::run_execution(&mut e, &sim::programs::lost_update(false)).unwrap();
    let events = e.events();
    assert_eq!(events.len() as u64, e.steps());
    assert_eq!(e.schedule().len(), e.steps());
    for t in 0..3 {
        let idx: Vec<u32> = events
            .iter()
            .filter(|ev| ev.thread == ThreadId(t))
            .map(|ev| ev.index)
            .collect();
        assert_eq!(idx, (0..idx.len() as u32).collect::<Vec<_>>());
        assert_eq!(
            events
                .iter()
                .find(|ev| ev.thread == ThreadId(t))
                .unwrap()
                .kind,
            OpKind::Begin
        );
    }
    let starts: Vec<u64> = events
        .iter()
        .filter(|ev| ev.kind == OpKind::Start)
        .map(|ev| ev.target)
        .collect();
    assert_eq!(starts, vec![1, 2]);
    let writes = events.iter().filter(|ev| ev.is_write()).count();
    assert_eq!(writes, 2);
    // Events and schedule agree step by step.
    for (ev, choice) in events.iter().zip(e.schedule().iter()) {
        assert_eq!(crate::Choice::Thread(ev.thread), choice);
    }
}

/// Wraps a strategy and checks every view it is given.
struct Checked<S> {
    inner: S,
    last_step: Option<u64>,
}

impl<S: Strategy> Strategy for Checked<S> {
    fn begin_execution(&mut self, index: u64) {
        self.last_step = None;
        self.inner.begin_execution(index)
    }
    fn pick(&mut self, view: &View<'_>) -> Pick {
        assert!(!view.enabled.is_empty());
        assert!(view.enabled.windows(2).all(|w| w[0].thread < w[1].thread));
        assert_eq!(
            view.running_enabled,
            view.running.is_some_and(|r| view.candidate(r).is_some())
        );
        assert_eq!(view.step, self.last_step.map_or(0, |s| s + 1));
        assert_eq!(view.events.len() as u64, view.step);
        assert!(view.enabled.iter().all(|c| c.thread.0 < view.threads));
        self.last_step = Some(view.step);
        self.inner.pick(view)
    }
    fn pick_waiter(&mut self, obj: ObjId, waiters: &[ThreadId]) -> Pick {
        assert!(waiters.len() >= 2);
        self.inner.pick_waiter(obj, waiters)
    }
    fn end_execution(&mut self, s: &ExecutionSummary<'_>) -> bool {
        self.inner.end_execution(s)
    }
}

#[test]
fn views_keep_their_promises() {
    for case in sim::programs::all() {
        let config = Config {
            spurious_wakeups: case.needs_spurious,
            ..Config::default()
        };
        let checked = Checked {
            inner: RandomWalk::new(9),
            last_step: None,
        };
        sim::search(&case.buggy, config, checked, 200, false).unwrap();
    }
}

/// Property: no sequence of calls, however wrong, makes the model panic; every `Run` names an
/// existing thread; after an error the execution can go on.
#[test]
fn arbitrary_call_sequences_never_panic() {
    let mut rng = SeededRandom::new(2024);
    for round in 0..300 {
        let config = Config {
            max_steps: 200,
            spurious_wakeups: round % 2 == 0,
            ..Config::default()
        };
        let mut e = Execution::new(config, RandomWalk::new(round));
        for _ in 0..400 {
            let threads = e.thread_count() as u64 + 1;
            let t = match e.running() {
                Some(r) if rng.below(5) != 0 => r,
                _ => ThreadId(rng.below(threads) as u32),
            };
            let result = if rng.below(20) == 0 {
                e.thread_finished(t)
            } else {
                e.announce(t, random_op(&mut rng, threads))
            };
            match result {
                Ok(Decision::Run { thread, .. }) => assert!(thread.0 < e.thread_count()),
                Ok(_) => {
                    e.finish(true).unwrap();
                    e.restart().unwrap();
                }
                Err(ExecError::Ended) => unreachable!("restarted after every end"),
                Err(_) => {}
            }
        }
    }
}

fn random_op(rng: &mut SeededRandom, threads: u64) -> Op {
    let obj = ObjId(rng.below(3));
    let target = ThreadId(rng.below(threads + 1) as u32);
    let flag = rng.below(2) == 0;
    match rng.below(20) {
        0 => Op::Begin,
        1 | 2 => Op::End,
        3 => Op::Access {
            loc: Loc(rng.below(4)),
            var: VarId(0),
            write: flag,
            site: 0,
        },
        4 | 5 => Op::MonitorEnter { obj, site: 0 },
        6 | 7 => Op::MonitorExit { obj, site: 0 },
        8 => Op::Wait {
            obj,
            timed: flag,
            nanos: 0,
            site: 0,
        },
        9 => Op::WaitReturn { obj },
        10 => Op::Notify {
            obj,
            all: flag,
            site: 0,
        },
        11 => Op::Start { site: 0 },
        12 => Op::Join {
            target,
            timed: flag,
            nanos: 0,
            site: 0,
        },
        13 => Op::Sleep {
            site: 0,
            nanos: 1_000,
        },
        14 => Op::Yield { site: 0 },
        15 => Op::Interrupt { target, site: 0 },
        16 => Op::Interrupted {
            clear: flag,
            site: 0,
        },
        17 => Op::Park {
            timed: flag,
            nanos: 0,
            site: 0,
        },
        18 => Op::Unpark { target, site: 0 },
        19 => Op::IsInterrupted { target, site: 0 },
        20 => Op::ThreadStatus { target, site: 0 },
        _ => Op::LiveThreads { site: 0 },
    }
}

/// The thread a test names next when it is enabled, else the highest enabled.
struct Prefer(std::rc::Rc<std::cell::Cell<Option<ThreadId>>>);

impl Strategy for Prefer {
    fn begin_execution(&mut self, _index: u64) {}
    fn pick(&mut self, view: &View<'_>) -> Pick {
        let preferred = self
            .0
            .take()
            .filter(|t| view.enabled.iter().any(|c| c.thread == *t));
        Ok(preferred.unwrap_or(view.enabled.last().unwrap().thread))
    }
    fn end_execution(&mut self, _s: &ExecutionSummary<'_>) -> bool {
        true
    }
}

#[test]
fn thread_queries_answer_what_get_state_and_active_count_would() {
    use crate::op::JavaThreadState::*;
    let prefer = std::rc::Rc::new(std::cell::Cell::new(None));
    let mut e = Execution::new(Config::default(), Prefer(prefer.clone()));
    let state = |t| Op::ThreadStatus { target: t, site: 9 };
    let live = Op::LiveThreads { site: 9 };
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
    assert_eq!(
        e.perform_now(T0, Op::MonitorEnter { obj: M, site: 1 }),
        normal(T0)
    );
    assert_eq!(
        e.perform_now(T0, Op::Start { site: 2 }),
        run(T0, OpOutcome::Started(T1))
    );
    // Started, not yet begun: runnable, alive.
    assert_eq!(e.java_state(T1), Runnable);
    // T0's query runs after T1 (the highest) began and blocked on T0's monitor.
    assert_eq!(e.announce(T0, state(T1)), run(T1, OpOutcome::Normal));
    assert_eq!(
        e.announce(T1, Op::MonitorEnter { obj: M, site: 3 }),
        run(T0, OpOutcome::State(Blocked))
    );
    assert_eq!(e.announce(T0, live), run(T0, OpOutcome::Count(2)));
    // T0 waits, releasing the monitor; T1 gets it.
    let wait = Op::Wait {
        obj: M,
        timed: false,
        nanos: 0,
        site: 4,
    };
    assert_eq!(e.announce(T0, wait), normal(T0));
    assert_eq!(e.announce(T0, Op::WaitReturn { obj: M }), normal(T1));
    assert_eq!(
        e.announce(T1, state(T0)),
        run(T1, OpOutcome::State(Waiting))
    );
    let notify = Op::Notify {
        obj: M,
        all: false,
        site: 5,
    };
    assert_eq!(e.announce(T1, notify), run(T1, OpOutcome::Woke(vec![T0])));
    // Notified, but the monitor is T1's: blocked until T1 leaves it.
    assert_eq!(
        e.announce(T1, state(T0)),
        run(T1, OpOutcome::State(Blocked))
    );
    assert_eq!(
        e.announce(T1, Op::MonitorExit { obj: M, site: 6 }),
        normal(T1)
    );
    assert_eq!(
        e.announce(T1, state(T0)),
        run(T1, OpOutcome::State(Runnable))
    );
    // T1 is in its sleep (virtual time) until the scheduler runs it again.
    prefer.set(Some(T0));
    assert_eq!(
        e.announce(
            T1,
            Op::Sleep {
                site: 7,
                nanos: 1_000_000
            }
        ),
        normal(T0)
    );
    prefer.set(Some(T0));
    assert_eq!(
        e.announce(T0, state(T1)),
        run(T0, OpOutcome::State(TimedWaiting))
    );
    let join = Op::Join {
        target: T1,
        timed: false,
        nanos: 0,
        site: 8,
    };
    assert_eq!(e.announce(T0, join), normal(T1));
    assert_eq!(e.java_state(T0), Waiting);
    assert_eq!(e.announce(T1, Op::End), normal(T1));
    assert_eq!(e.thread_finished(T1), normal(T0));
    assert_eq!(
        e.announce(T0, state(T1)),
        run(T0, OpOutcome::State(Terminated))
    );
    assert_eq!(e.announce(T0, live), run(T0, OpOutcome::Count(1)));
    assert_eq!(
        e.announce(T0, state(T0)),
        run(T0, OpOutcome::State(Runnable))
    );
    // Each query's event holds its answer, so the HB graph tells the answers apart.
    let answers: Vec<u32> = e
        .events()
        .iter()
        .filter(|ev| matches!(ev.kind, OpKind::ThreadStatus | OpKind::LiveThreads))
        .map(|ev| ev.var.0)
        .collect();
    assert_eq!(answers, [2, 2, 3, 2, 1, 4, 5, 1, 1]);
}

#[test]
fn perform_now_starts_a_thread_without_a_switch() {
    // Highest would pick the new thread at the next choice; perform_now gives it none.
    let mut e = Execution::new(Config::default(), Highest);
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
    assert_eq!(
        e.perform_now(T0, Op::Start { site: 1 }),
        run(T0, OpOutcome::Started(T1))
    );
    assert_eq!(
        e.perform_now(T0, Op::Start { site: 2 }),
        run(T0, OpOutcome::Started(ThreadId(2)))
    );
    assert_eq!(e.steps(), 3);
    assert_eq!(e.events().len(), 3);
    // Back to ordinary points: the highest thread, the second child, goes first.
    assert_eq!(e.announce(T0, Op::Yield { site: 3 }), normal(ThreadId(2)));
    // Only operations enabled now: one that may block needs a choice.
    assert_eq!(e.running(), Some(ThreadId(2)));
    assert!(e
        .perform_now(
            ThreadId(2),
            Op::Park {
                timed: false,
                nanos: 0,
                site: 4
            }
        )
        .is_err());
}

#[test]
fn perform_now_enters_only_a_monitor_no_other_thread_owns() {
    let mut e = Execution::new(Config::default(), Highest);
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
    assert!(!e.others_own_monitors(T0));
    let enter = |site| Op::MonitorEnter { obj: M, site };
    assert_eq!(e.perform_now(T0, enter(1)), normal(T0));
    assert_eq!(e.perform_now(T0, enter(2)), normal(T0)); // reentrant
    assert!(!e.others_own_monitors(T0));
    assert_eq!(
        e.perform_now(T0, Op::Start { site: 3 }),
        run(T0, OpOutcome::Started(T1))
    );
    assert_eq!(e.announce(T0, Op::Yield { site: 4 }), normal(T1)); // T1's Begin
    assert!(e.others_own_monitors(T1));
    assert!(e.perform_now(T1, enter(5)).is_err());
    // The model blocks T1 on M until T0 has exited both entries.
    assert_eq!(e.announce(T1, enter(5)), normal(T0)); // T0's Yield
    assert_eq!(
        e.announce(T0, Op::MonitorExit { obj: M, site: 6 }),
        normal(T0)
    );
    assert_eq!(
        e.announce(T0, Op::MonitorExit { obj: M, site: 7 }),
        normal(T0)
    );
    assert!(!e.others_own_monitors(T1));
    assert_eq!(
        e.announce(
            T0,
            Op::Interrupt {
                target: T1,
                site: 8
            }
        ),
        normal(T1)
    );
    assert!(e.others_own_monitors(T0)); // T1 entered M
    assert!(!e.interrupt_flag(T1));
    let park = Op::Park {
        timed: false,
        nanos: 0,
        site: 9,
    };
    assert_eq!(e.announce(T1, park), normal(T0)); // T0's Interrupt
    assert!(e.interrupt_flag(T1)); // park keeps the flag
}

#[test]
fn an_adopted_monitor_blocks_others_until_its_unseen_exit_is_performed() {
    // T0 took M inside code with no scheduling points (a synchronized JDK method) and
    // stopped at a point in it; T1 runs and finds M taken.
    let mut e = Execution::new(Config::default(), Highest);
    assert_eq!(e.announce(T0, Op::Begin), normal(T0));
    e.perform_now(T0, Op::Start { site: 1 }).unwrap();
    assert_eq!(e.announce(T0, Op::Yield { site: 2 }), normal(T1));
    assert_eq!(e.announce(T1, Op::Yield { site: 3 }), normal(T1));
    let steps = e.steps();
    e.adopt_monitor(T0, M).unwrap();
    assert_eq!(e.monitor(M), Some((T0, 1)));
    assert_eq!(e.steps(), steps, "learning of a take is no step");
    assert!(matches!(
        e.adopt_monitor(T1, M),
        Err(ExecError::MonitorHeld { owner: T0, .. })
    ));
    // T1 wants M: blocked, so T0 (the holder) runs.
    assert_eq!(
        e.announce(T1, Op::MonitorEnter { obj: M, site: 4 }),
        normal(T0)
    );
    // T0 left M where nothing saw it; at its next point it performs the exit first.
    assert_eq!(
        e.perform_now(T0, Op::MonitorExit { obj: M, site: 5 }),
        normal(T0)
    );
    assert_eq!(e.monitor(M), None);
    // Now T1's enter is offered, and Highest takes it.
    assert_eq!(e.announce(T0, Op::Yield { site: 6 }), normal(T1));
    assert_eq!(e.monitor(M), Some((T1, 1)));
}

/// `synchronized (t) { while (t.isAlive()) t.wait(); }` with `t` ending: the end waits for the
/// monitor of `t`'s `Thread` object and wakes its waiters, as the JVM's does. Without
/// [`Execution::thread_object`] the same schedule leaves the waiter waiting for ever.
#[test]
fn a_thread_end_wakes_the_waiters_on_its_thread_object() {
    let thread_object = ObjId(9);
    let wait = Op::Wait {
        obj: thread_object,
        timed: false,
        nanos: 0,
        site: 2,
    };
    let mut e = Execution::new(Config::default(), Highest);
    for told in [true, false] {
        e.announce(T0, Op::Begin).unwrap();
        let enter = Op::MonitorEnter {
            obj: thread_object,
            site: 1,
        };
        assert_eq!(e.announce(T0, enter), normal(T0));
        assert_eq!(
            e.announce(T0, Op::Start { site: 1 }),
            run(T0, OpOutcome::Started(T1))
        );
        // The highest thread, T1, begins before T0's wait.
        assert_eq!(e.announce(T0, wait), normal(T1));
        if told {
            e.thread_object(T1, thread_object).unwrap();
            // T0 holds the monitor: T1's end must wait for T0's wait to release it.
            assert_eq!(e.announce(T1, Op::End), normal(T0));
            assert_eq!(
                e.announce(T0, Op::WaitReturn { obj: thread_object }),
                run(T1, OpOutcome::Woke(vec![T0]))
            );
            let end = *e.events().as_slice().last().unwrap();
            assert_eq!(end.kind, OpKind::End);
            assert_eq!(
                crate::hb::event_touches(&end).1.as_slice().len(),
                2,
                "the end also writes the monitor it notified"
            );
            assert_eq!(e.thread_finished(T1), normal(T0));
        } else {
            // T1 ends at once, T0 waits afterwards: nobody is left to wake it.
            assert_eq!(e.announce(T1, Op::End), normal(T1));
            assert_eq!(e.thread_finished(T1), normal(T0));
            assert!(matches!(
                e.announce(T0, Op::WaitReturn { obj: thread_object }),
                Ok(Decision::Deadlock { .. })
            ));
        }
        e.finish(false).unwrap();
        e.restart().unwrap();
    }
}

/// t1 begins a class's initializer and is switched out at its first point; t0 touches the class
/// and waits in the JVM: its wait is enabled only once the agent saw the initializer end, and
/// two threads each waiting for the other's class are a deadlock.
#[test]
fn a_wait_for_a_class_initialization_is_enabled_once_it_ended() {
    let mut e = Execution::new(Config::default(), Highest);
    e.announce(T0, Op::Begin).unwrap();
    assert_eq!(
        e.announce(T0, Op::Start { site: 1 }),
        run(T0, OpOutcome::Started(T1))
    );
    // t0 goes on (its outcome was given to it already), t1 is picked at its begin.
    assert_eq!(e.announce(T0, Op::Yield { site: 2 }), normal(T1));
    assert_eq!(e.announce(T1, Op::ClassInit { site: 3 }), normal(T1));
    // Highest runs t1 on; make t0 run by t1 waiting for a class t0 initializes.
    assert_eq!(e.announce(T1, Op::ClassInitWait { site: 9 }), normal(T0));
    assert_eq!(e.status(T1), Some(ThreadStatus::InitWaiting));
    assert_eq!(
        e.java_state(T1),
        JavaThreadState::Runnable,
        "as the JVM says"
    );
    assert_eq!(
        e.class_init_ended(T0),
        Err(ExecError::NotWaitingForInit(T0))
    );
    e.class_init_ended(T1).unwrap();
    assert_eq!(
        e.status(T1),
        Some(ThreadStatus::Ready(Op::ClassInitWait { site: 9 }))
    );
    assert_eq!(e.announce(T0, Op::ClassInit { site: 4 }), normal(T1));
    // t1 waits again (for t0's class), and t0 for t1's: nobody can go on.
    assert_eq!(e.announce(T1, Op::ClassInitWait { site: 9 }), normal(T0));
    assert_eq!(
        e.announce(T0, Op::ClassInitWait { site: 9 }),
        Ok(Decision::Deadlock {
            blocked: vec![
                (T0, Op::ClassInitWait { site: 9 }),
                (T1, Op::ClassInitWait { site: 9 })
            ]
        })
    );
}
