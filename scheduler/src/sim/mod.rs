//! A simulated-program test bed: tiny programs whose threads perform operations on shared
//! variables and monitors, interpreted through the same [`Execution`] facade the JVM agent
//! drives, so the model and the strategies are tested exactly as the agent uses them.
//!
//! A [`Program`] is a list of thread *bodies* (body 0 is the main thread) of [`Ins`]tructions.
//! Each thread has four integer registers. Data instructions (`Read`, `Write`), monitor,
//! wait/notify, thread and park instructions are scheduling points; `Set`, `JumpIf`, `Goto` and
//! `Assert` are local. A failing `Assert` ends the execution as a bug (like an uncaught
//! `AssertionError`), as does an `IllegalMonitorStateException`, a deadlock, the step bound or a
//! non-zero `Exit`.
//!
//! [`search`] runs a strategy for a budget of executions; with [`Dfs`](crate::strategy::Dfs) it
//! enumerates every schedule (ground truth). [`replay`] re-runs a recorded schedule.
//! [`programs`] holds small programs with known bugs and their fixed versions.

pub mod programs;
#[cfg(test)]
mod tests;

use crate::ids::{Loc, ObjId, SiteId, ThreadId, VarId};
use crate::op::{Decision, Op, OpOutcome};
use crate::schedule::Schedule;
use crate::strategy::{Replay, ReplayResult, Stop, Strategy};
use crate::{Config, ExecError, Execution};
use std::fmt;

/// Number of registers per thread.
pub const REGISTERS: usize = 4;

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Const(i64),
    Reg(u8),
    /// Register plus a constant.
    RegPlus(u8, i64),
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// One instruction. Thread operands (`Start`, `Join`, `Interrupt`, `Unpark`) name a *body*: the
/// thread most recently started with that body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ins {
    /// `reg = vars[var]` (a scheduling point).
    Read {
        var: u32,
        reg: u8,
    },
    /// `vars[var] = val` (a scheduling point).
    Write {
        var: u32,
        val: Val,
    },
    /// `reg = val` (local).
    Set {
        reg: u8,
        val: Val,
    },
    /// Jump to instruction `to` if `reg cmp val` (local).
    JumpIf {
        reg: u8,
        cmp: Cmp,
        val: Val,
        to: u32,
    },
    /// Jump to instruction `to` (local).
    Goto(u32),
    /// Fail the execution with `msg` unless `reg cmp val` (local).
    Assert {
        reg: u8,
        cmp: Cmp,
        val: Val,
        msg: &'static str,
    },
    Lock(u32),
    Unlock(u32),
    Wait(u32),
    /// `wait` on monitor `m` with a timeout of [`TIMED_WAIT_NANOS`].
    TimedWait(u32),
    Notify(u32),
    NotifyAll(u32),
    /// Start a new thread running body `b`.
    Start(u32),
    Join(u32),
    Yield,
    Sleep,
    Interrupt(u32),
    /// `reg` = the `Thread.State` ordinal of the thread running body `body` (`getState()`; a
    /// scheduling point): 1 runnable, 2 blocked, 3 waiting, 4 timed waiting, 5 terminated.
    State {
        body: u32,
        reg: u8,
    },
    Park,
    /// `parkNanos` for this many virtual nanoseconds.
    TimedPark(u64),
    Unpark(u32),
    Exit(i32),
}

/// The timeout of [`Ins::TimedWait`]: one millisecond.
pub const TIMED_WAIT_NANOS: u64 = 1_000_000;

/// The length of [`Ins::Sleep`]: a tenth of [`TIMED_WAIT_NANOS`].
pub const SLEEP_NANOS: u64 = 100_000;

/// A simulated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: &'static str,
    /// Initial values of the shared variables.
    pub vars: Vec<i64>,
    /// Thread bodies; body 0 is the main thread.
    pub bodies: Vec<Vec<Ins>>,
}

/// A simulated program that cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The program is malformed (bad register, variable, body or jump target, or a thread
    /// operation on a body that was never started).
    Program(String),
    /// The facade rejected a call (a bug in the simulator or the model).
    Exec(ExecError),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Program(m) => write!(f, "bad simulated program: {m}"),
            SimError::Exec(e) => write!(f, "facade error: {e}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<ExecError> for SimError {
    fn from(e: ExecError) -> SimError {
        SimError::Exec(e)
    }
}

/// How one simulated execution ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every thread finished and every assertion held.
    Pass,
    AssertFailed {
        thread: ThreadId,
        message: &'static str,
    },
    IllegalMonitorState {
        thread: ThreadId,
    },
    Deadlock {
        blocked: Vec<(ThreadId, Op)>,
    },
    /// Too long to explore: not a bug by itself.
    StepBound,
    /// Every enabled thread kept spinning for the livelock window.
    Livelock {
        spinning: Vec<(ThreadId, Vec<crate::SiteId>)>,
    },
    Exit(i32),
    /// The strategy stopped the execution (not a bug).
    Stopped(Stop),
}

impl Outcome {
    /// Whether this outcome is a bug.
    pub fn is_bug(&self) -> bool {
        match self {
            Outcome::Pass | Outcome::Stopped(_) | Outcome::Exit(0) | Outcome::StepBound => false,
            Outcome::AssertFailed { .. }
            | Outcome::IllegalMonitorState { .. }
            | Outcome::Deadlock { .. }
            | Outcome::Livelock { .. }
            | Outcome::Exit(_) => true,
        }
    }
}

#[derive(Clone, Debug)]
struct SimThread {
    body: usize,
    pc: usize,
    regs: [i64; REGISTERS],
    begun: bool,
    /// Set between performing `Wait` and performing `WaitReturn`.
    waiting_on: Option<ObjId>,
}

/// Local instructions a thread may run between two scheduling points before the simulator calls
/// it an endless local loop.
const MAX_LOCAL_STEPS: u32 = 100_000;

/// The interpreter state of one execution.
struct Machine<'p> {
    program: &'p Program,
    vars: Vec<i64>,
    threads: Vec<SimThread>,
    /// The thread most recently started from each body.
    handles: Vec<Option<ThreadId>>,
}

/// What a thread does at its scheduling point.
enum Next {
    Op(Op),
    Failed(&'static str),
}

impl<'p> Machine<'p> {
    fn new(program: &'p Program) -> Machine<'p> {
        let mut handles = vec![None; program.bodies.len()];
        handles[0] = Some(ThreadId::MAIN);
        Machine {
            program,
            vars: program.vars.clone(),
            threads: vec![SimThread::new(0)],
            handles,
        }
    }

    fn bad(&self, t: ThreadId, what: String) -> SimError {
        let th = &self.threads[t.index()];
        SimError::Program(format!(
            "{}: body {} instruction {}: {what}",
            self.program.name, th.body, th.pc
        ))
    }

    fn reg(&self, t: ThreadId, r: u8) -> Result<i64, SimError> {
        self.threads[t.index()]
            .regs
            .get(r as usize)
            .copied()
            .ok_or_else(|| self.bad(t, format!("no register r{r}")))
    }

    fn eval(&self, t: ThreadId, v: Val) -> Result<i64, SimError> {
        Ok(match v {
            Val::Const(c) => c,
            Val::Reg(r) => self.reg(t, r)?,
            Val::RegPlus(r, k) => self.reg(t, r)?.wrapping_add(k),
        })
    }

    fn var(&self, t: ThreadId, var: u32) -> Result<usize, SimError> {
        if (var as usize) < self.vars.len() {
            Ok(var as usize)
        } else {
            Err(self.bad(t, format!("no variable {var}")))
        }
    }

    fn handle(&self, t: ThreadId, body: u32) -> Result<ThreadId, SimError> {
        self.handles
            .get(body as usize)
            .copied()
            .flatten()
            .ok_or_else(|| self.bad(t, format!("body {body} has not been started")))
    }

    fn site(&self, t: ThreadId) -> SiteId {
        let th = &self.threads[t.index()];
        ((th.body as i64) << 24) | th.pc as i64
    }

    /// Runs `t`'s local instructions up to its next scheduling point.
    fn next(&mut self, t: ThreadId) -> Result<Next, SimError> {
        if let Some(obj) = self.threads[t.index()].waiting_on {
            return Ok(Next::Op(Op::WaitReturn { obj }));
        }
        let body = &self.program.bodies[self.threads[t.index()].body];
        for _ in 0..MAX_LOCAL_STEPS {
            let pc = self.threads[t.index()].pc;
            let Some(&ins) = body.get(pc) else {
                return Ok(Next::Op(Op::End));
            };
            let site = self.site(t);
            let op = match ins {
                Ins::Set { reg, val } => {
                    let v = self.eval(t, val)?;
                    self.reg(t, reg)?;
                    let th = &mut self.threads[t.index()];
                    th.regs[reg as usize] = v;
                    th.pc += 1;
                    continue;
                }
                Ins::JumpIf { reg, cmp, val, to } => {
                    let jump = cmp.holds(self.reg(t, reg)?, self.eval(t, val)?);
                    if jump && to as usize > body.len() {
                        return Err(self.bad(t, format!("jump target {to} out of range")));
                    }
                    let th = &mut self.threads[t.index()];
                    th.pc = if jump { to as usize } else { pc + 1 };
                    continue;
                }
                Ins::Goto(to) => {
                    if to as usize > body.len() {
                        return Err(self.bad(t, format!("jump target {to} out of range")));
                    }
                    self.threads[t.index()].pc = to as usize;
                    continue;
                }
                Ins::Assert { reg, cmp, val, msg } => {
                    if !cmp.holds(self.reg(t, reg)?, self.eval(t, val)?) {
                        return Ok(Next::Failed(msg));
                    }
                    self.threads[t.index()].pc += 1;
                    continue;
                }
                Ins::Read { var, reg } => {
                    self.var(t, var)?;
                    self.reg(t, reg)?;
                    access(var, false, site)
                }
                Ins::Write { var, val } => {
                    self.var(t, var)?;
                    self.eval(t, val)?;
                    access(var, true, site)
                }
                Ins::Lock(m) => Op::MonitorEnter {
                    obj: ObjId(m.into()),
                    site,
                },
                Ins::Unlock(m) => Op::MonitorExit {
                    obj: ObjId(m.into()),
                    site,
                },
                Ins::Wait(m) | Ins::TimedWait(m) => {
                    let timed = matches!(ins, Ins::TimedWait(_));
                    Op::Wait {
                        obj: ObjId(m.into()),
                        timed,
                        nanos: if timed { TIMED_WAIT_NANOS } else { 0 },
                        site,
                    }
                }
                Ins::Notify(m) | Ins::NotifyAll(m) => Op::Notify {
                    obj: ObjId(m.into()),
                    all: matches!(ins, Ins::NotifyAll(_)),
                    site,
                },
                Ins::Start(b) => {
                    if b as usize >= self.program.bodies.len() {
                        return Err(self.bad(t, format!("no body {b}")));
                    }
                    Op::Start { site }
                }
                Ins::Join(b) => Op::Join {
                    target: self.handle(t, b)?,
                    timed: false,
                    nanos: 0,
                    site,
                },
                Ins::Yield => Op::Yield { site },
                Ins::Sleep => Op::Sleep {
                    site,
                    nanos: SLEEP_NANOS,
                },
                Ins::Interrupt(b) => Op::Interrupt {
                    target: self.handle(t, b)?,
                    site,
                },
                Ins::State { body, reg } => {
                    self.reg(t, reg)?;
                    Op::ThreadStatus {
                        target: self.handle(t, body)?,
                        site,
                    }
                }
                Ins::Park => Op::Park {
                    timed: false,
                    nanos: 0,
                    site,
                },
                Ins::TimedPark(nanos) => Op::Park {
                    timed: true,
                    nanos,
                    site,
                },
                Ins::Unpark(b) => Op::Unpark {
                    target: self.handle(t, b)?,
                    site,
                },
                Ins::Exit(status) => Op::Exit { status, site },
            };
            return Ok(Next::Op(op));
        }
        Err(self.bad(t, "endless local loop".to_string()))
    }

    /// Applies the effect of `t`'s pending operation, just performed with `outcome`. Returns a
    /// failure when the operation throws.
    fn perform(&mut self, t: ThreadId, outcome: &OpOutcome) -> Result<Option<Outcome>, SimError> {
        let ti = t.index();
        if !self.threads[ti].begun {
            self.threads[ti].begun = true;
            return Ok(None);
        }
        if self.threads[ti].waiting_on.take().is_some() {
            self.threads[ti].pc += 1;
            return Ok(None);
        }
        let body = &self.program.bodies[self.threads[ti].body];
        let Some(&ins) = body.get(self.threads[ti].pc) else {
            return Ok(None); // End
        };
        if *outcome == OpOutcome::IllegalMonitorState {
            return Ok(Some(Outcome::IllegalMonitorState { thread: t }));
        }
        match ins {
            Ins::Read { var, reg } => {
                let v = self.vars[var as usize];
                self.threads[ti].regs[reg as usize] = v;
            }
            Ins::Write { var, val } => {
                let v = self.eval(t, val)?;
                self.vars[var as usize] = v;
            }
            Ins::State { reg, .. } => {
                let OpOutcome::State(state) = *outcome else {
                    return Err(self.bad(t, format!("a status query answered with {outcome:?}")));
                };
                self.threads[ti].regs[reg as usize] = i64::from(state.java_ordinal());
            }
            Ins::Wait(m) | Ins::TimedWait(m) if *outcome == OpOutcome::Normal => {
                // Stay on this instruction until WaitReturn is performed.
                self.threads[ti].waiting_on = Some(ObjId(m.into()));
                return Ok(None);
            }
            Ins::Start(b) => {
                let OpOutcome::Started(child) = *outcome else {
                    return Err(self.bad(t, format!("Start answered with {outcome:?}")));
                };
                debug_assert_eq!(child.index(), self.threads.len());
                self.threads.push(SimThread::new(b as usize));
                self.handles[b as usize] = Some(child);
            }
            _ => {}
        }
        self.threads[ti].pc += 1;
        Ok(None)
    }
}

fn access(var: u32, write: bool, site: SiteId) -> Op {
    Op::Access {
        loc: Loc(var.into()),
        var: VarId(var),
        write,
        site,
    }
}

impl SimThread {
    fn new(body: usize) -> SimThread {
        SimThread {
            body,
            pc: 0,
            regs: [0; REGISTERS],
            begun: false,
            waiting_on: None,
        }
    }
}

/// Runs the current execution of `exec` on `program` to its end (without calling `finish`).
pub fn run_execution<S: Strategy>(
    exec: &mut Execution<S>,
    program: &Program,
) -> Result<Outcome, SimError> {
    run_execution_with(exec, program, false)
}

/// Like [`run_execution`]; with `quiet`, as the agent does: after every turn the running thread
/// asks for a quiet stretch ([`Execution::quiet_budget`]) and performs that many accesses
/// without announcing them, reporting them with [`Execution::quiet_performed`] before its next
/// announcement.
pub fn run_execution_with<S: Strategy>(
    exec: &mut Execution<S>,
    program: &Program,
    quiet: bool,
) -> Result<Outcome, SimError> {
    if program.bodies.is_empty() {
        return Err(SimError::Program(format!("{}: no main body", program.name)));
    }
    let mut m = Machine::new(program);
    let mut decision = exec.announce(ThreadId::MAIN, Op::Begin)?;
    // The running thread's quiet stretch: granted, and used so far.
    let mut budget = 0u64;
    let mut used = 0u64;
    let mut granted_now = false;
    loop {
        match decision {
            Decision::Run { thread, outcome } => {
                if quiet && !granted_now {
                    budget = exec.quiet_budget(thread);
                    used = 0;
                }
                granted_now = false;
                let ended = m.threads[thread.index()].begun
                    && m.threads[thread.index()].waiting_on.is_none()
                    && m.threads[thread.index()].pc
                        >= program.bodies[m.threads[thread.index()].body].len();
                if let Some(failure) = m.perform(thread, &outcome)? {
                    exec.quiet_performed(thread, used)?;
                    return Ok(failure);
                }
                if ended {
                    decision = exec.thread_finished(thread)?;
                    continue;
                }
                match m.next(thread)? {
                    Next::Op(Op::Access { .. }) if used < budget => {
                        used += 1;
                        granted_now = true;
                        decision = Decision::Run {
                            thread,
                            outcome: OpOutcome::Normal,
                        };
                    }
                    Next::Op(op) => {
                        if let Some(d) = exec.quiet_performed(thread, std::mem::take(&mut used))? {
                            decision = d;
                            continue;
                        }
                        budget = 0;
                        decision = exec.announce(thread, op)?
                    }
                    Next::Failed(message) => {
                        exec.quiet_performed(thread, used)?;
                        return Ok(Outcome::AssertFailed { thread, message });
                    }
                }
            }
            Decision::Finished => return Ok(Outcome::Pass),
            Decision::Deadlock { blocked } => return Ok(Outcome::Deadlock { blocked }),
            Decision::StepBound => return Ok(Outcome::StepBound),
            Decision::Livelock { spinning } => return Ok(Outcome::Livelock { spinning }),
            Decision::Exit { status } => return Ok(Outcome::Exit(status)),
            Decision::Stopped(stop) => return Ok(Outcome::Stopped(stop)),
        }
    }
}

/// A bug found by [`search`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Index of the failing execution.
    pub execution: u64,
    pub outcome: Outcome,
    /// Its schedule.
    pub schedule: Schedule,
}

/// What [`search`] saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReport {
    pub executions: u64,
    /// Executions that ended in a bug.
    pub bugs: u64,
    /// Executions the strategy stopped.
    pub stopped: u64,
    pub first_bug: Option<Found>,
    /// The strategy wanted no more executions (for `Dfs`: every schedule was run).
    pub exhausted: bool,
}

/// Runs `program` under `strategy` for at most `budget` executions, stopping at the first bug if
/// `stop_at_bug`.
pub fn search<S: Strategy>(
    program: &Program,
    config: Config,
    strategy: S,
    budget: u64,
    stop_at_bug: bool,
) -> Result<SearchReport, SimError> {
    let mut report = SearchReport::default();
    if budget == 0 {
        return Ok(report);
    }
    let mut exec = Execution::new(config, strategy);
    loop {
        let outcome = run_execution(&mut exec, program)?;
        let bug = outcome.is_bug();
        report.executions += 1;
        if matches!(outcome, Outcome::Stopped(_)) {
            report.stopped += 1;
        }
        if bug {
            report.bugs += 1;
            if report.first_bug.is_none() {
                report.first_bug = Some(Found {
                    execution: exec.index(),
                    outcome,
                    schedule: exec.schedule().clone(),
                });
            }
        }
        let more = exec.finish(bug)?;
        if !more {
            report.exhausted = true;
            break;
        }
        if report.executions >= budget || (bug && stop_at_bug) {
            break;
        }
        exec.restart()?;
    }
    Ok(report)
}

/// Re-runs `schedule` on `program`: the outcome, and whether the program followed the schedule.
pub fn replay(
    program: &Program,
    config: Config,
    schedule: &Schedule,
) -> Result<(Outcome, ReplayResult), SimError> {
    let mut exec = Execution::new(config, Replay::new(schedule));
    let outcome = run_execution(&mut exec, program)?;
    exec.finish(outcome.is_bug())?;
    Ok((outcome, exec.strategy().result().clone()))
}
