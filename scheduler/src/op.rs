//! What threads announce ([`Op`]), what the scheduler answers ([`Decision`]) and what the
//! performing thread is told about its operation ([`OpOutcome`]).

use crate::ids::{Loc, ObjId, SiteId, ThreadId, VarId};
use crate::strategy::Stop;

/// The next operation of a thread, announced *before* it happens (at a scheduling point).
///
/// "Performing" an operation means: the scheduler picked the thread, applied the operation's
/// effect to the model and answered [`Decision::Run`]; the real thread then does the real thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A thread's first scheduling point. A started thread begins with this op pending; the
    /// agent never announces it for children (they wait until picked), only for the main thread
    /// as the very first call of an execution.
    Begin,
    /// A thread's last scheduling point; performing it finishes the thread (joiners may go on).
    End,
    /// A field, static or array read or write.
    Access {
        loc: Loc,
        var: VarId,
        write: bool,
        site: SiteId,
    },
    /// Enabled iff the model monitor is free or already owned by this thread (re-entry).
    MonitorEnter { obj: ObjId, site: SiteId },
    /// Announced after the real monitorexit; performing it drops one level of ownership.
    MonitorExit { obj: ObjId, site: SiteId },
    /// `obj.wait()` (`timed`: with a timeout of `nanos`). Always enabled; performing it by the
    /// owner releases the monitor completely (the re-entry count is saved) and puts the thread
    /// in `obj`'s wait set; the thread then at once announces [`Op::WaitReturn`].
    Wait {
        obj: ObjId,
        timed: bool,
        /// The timeout's length in virtual nanoseconds (0 when untimed): which of several
        /// timed waiters times out first (`Timeouts::Idle`).
        nanos: u64,
        site: SiteId,
    },
    /// Announced right after performing [`Op::Wait`]. Enabled when the thread was notified (or,
    /// for a timed wait, may time out; or was interrupted; or may wake spuriously when
    /// [`Config::spurious_wakeups`](crate::Config::spurious_wakeups) is on) AND the monitor is
    /// free; performing it re-acquires the monitor with the saved count.
    WaitReturn { obj: ObjId },
    /// `notify` (`all == false`) or `notifyAll`. Which waiter a `notify` wakes is a strategy
    /// choice ([`Strategy::pick_waiter`](crate::Strategy::pick_waiter)).
    Notify { obj: ObjId, all: bool, site: SiteId },
    /// `Thread.start`: performing it creates the child (with [`Op::Begin`] pending).
    Start { site: SiteId },
    /// `target.join()`: enabled when `target` has finished (or `timed`, or this thread has been
    /// interrupted).
    Join {
        target: ThreadId,
        timed: bool,
        /// As in [`Op::Wait`].
        nanos: u64,
        site: SiteId,
    },
    /// `Thread.sleep` for `nanos`: always enabled (a sleep orders nothing: its thread may go on
    /// before threads that take no time); counts towards the yield count. When performed,
    /// virtual time moves to at least its announcement plus `nanos`, so the timeouts of timed
    /// waiters that end before it fire first ([`Execution`](crate::Execution)).
    Sleep { site: SiteId, nanos: u64 },
    /// `Thread.yield` / `Thread.onSpinWait`: always enabled; counts towards the yield count.
    Yield { site: SiteId },
    /// `target.interrupt()`.
    Interrupt { target: ThreadId, site: SiteId },
    /// `Thread.interrupted()` (`clear == true`) or `Thread.currentThread().isInterrupted()`
    /// (`clear == false`): a query of the announcing thread's own flag.
    Interrupted { clear: bool, site: SiteId },
    /// `target.isInterrupted()` for any thread (an addition to the agreed shape: the agreed
    /// `Interrupted` only covers the running thread).
    IsInterrupted { target: ThreadId, site: SiteId },
    /// `target.isAlive()` / `target.getState()`: answered from the model ([`JavaThreadState`]), not
    /// from the JVM, whose answer depends on when the real thread got to its next scheduling
    /// point. Always enabled.
    ThreadStatus { target: ThreadId, site: SiteId },
    /// `Thread.activeCount()`: the execution's threads that have not ended (the JVM's count would
    /// include rankcheck's own threads and those of earlier executions). Always enabled.
    LiveThreads { site: SiteId },
    /// `LockSupport.park*`: enabled when the thread holds a permit, or `timed`, or it has been
    /// interrupted (or spuriously, when spurious wake-ups are on).
    Park {
        timed: bool,
        /// As in [`Op::Wait`].
        nanos: u64,
        site: SiteId,
    },
    /// `LockSupport.unpark(target)`: gives `target` its permit.
    Unpark { target: ThreadId, site: SiteId },
    /// `System.exit` / `Runtime.exit` / `Runtime.halt`: performing it ends the execution.
    Exit { status: i32, site: SiteId },
    /// The first instruction of a static initializer of the program's: the JVM has just made the
    /// thread the class's initializer (JVMS §5.5), so a thread that touches the class before the
    /// initializer returns waits for it. Always enabled.
    ClassInit { site: SiteId },
    /// Waiting, inside the JVM, for a class another thread is initializing: announced on behalf of
    /// a thread the agent found waiting there. Enabled once the agent saw the initialization end
    /// ([`Execution::class_init_ended`](crate::Execution::class_init_ended)). `site`: where
    /// the thread touched the class.
    ClassInitWait { site: SiteId },
}

/// The kind of an [`Op`], without its operands (for the event record and for counting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    Begin,
    End,
    Read,
    Write,
    MonitorEnter,
    MonitorExit,
    Wait,
    WaitReturn,
    Notify,
    NotifyAll,
    Start,
    Join,
    Sleep,
    Yield,
    Interrupt,
    Interrupted,
    IsInterrupted,
    ThreadStatus,
    LiveThreads,
    Park,
    Unpark,
    Exit,
    ClassInit,
    ClassInitWait,
}

impl OpKind {
    /// Every kind, in declaration order.
    pub const ALL: [OpKind; 24] = [
        OpKind::Begin,
        OpKind::End,
        OpKind::Read,
        OpKind::Write,
        OpKind::MonitorEnter,
        OpKind::MonitorExit,
        OpKind::Wait,
        OpKind::WaitReturn,
        OpKind::Notify,
        OpKind::NotifyAll,
        OpKind::Start,
        OpKind::Join,
        OpKind::Sleep,
        OpKind::Yield,
        OpKind::Interrupt,
        OpKind::Interrupted,
        OpKind::IsInterrupted,
        OpKind::ThreadStatus,
        OpKind::LiveThreads,
        OpKind::Park,
        OpKind::Unpark,
        OpKind::Exit,
        OpKind::ClassInit,
        OpKind::ClassInitWait,
    ];

    /// The kind named `name` ([`OpKind::as_str`]).
    pub fn parse(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// A short lower-case name, used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Begin => "begin",
            OpKind::End => "end",
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::MonitorEnter => "monitor-enter",
            OpKind::MonitorExit => "monitor-exit",
            OpKind::Wait => "wait",
            OpKind::WaitReturn => "wait-return",
            OpKind::Notify => "notify",
            OpKind::NotifyAll => "notify-all",
            OpKind::Start => "start",
            OpKind::Join => "join",
            OpKind::Sleep => "sleep",
            OpKind::Yield => "yield",
            OpKind::Interrupt => "interrupt",
            OpKind::Interrupted => "interrupted",
            OpKind::IsInterrupted => "is-interrupted",
            OpKind::ThreadStatus => "thread-status",
            OpKind::LiveThreads => "live-threads",
            OpKind::Park => "park",
            OpKind::Unpark => "unpark",
            OpKind::Exit => "exit",
            OpKind::ClassInit => "class-init",
            OpKind::ClassInitWait => "class-init-wait",
        }
    }
}

impl Op {
    /// The operation's kind.
    pub fn kind(&self) -> OpKind {
        match *self {
            Op::Begin => OpKind::Begin,
            Op::End => OpKind::End,
            Op::Access { write: false, .. } => OpKind::Read,
            Op::Access { write: true, .. } => OpKind::Write,
            Op::MonitorEnter { .. } => OpKind::MonitorEnter,
            Op::MonitorExit { .. } => OpKind::MonitorExit,
            Op::Wait { .. } => OpKind::Wait,
            Op::WaitReturn { .. } => OpKind::WaitReturn,
            Op::Notify { all: false, .. } => OpKind::Notify,
            Op::Notify { all: true, .. } => OpKind::NotifyAll,
            Op::Start { .. } => OpKind::Start,
            Op::Join { .. } => OpKind::Join,
            Op::Sleep { .. } => OpKind::Sleep,
            Op::Yield { .. } => OpKind::Yield,
            Op::Interrupt { .. } => OpKind::Interrupt,
            Op::Interrupted { .. } => OpKind::Interrupted,
            Op::IsInterrupted { .. } => OpKind::IsInterrupted,
            Op::ThreadStatus { .. } => OpKind::ThreadStatus,
            Op::LiveThreads { .. } => OpKind::LiveThreads,
            Op::Park { .. } => OpKind::Park,
            Op::Unpark { .. } => OpKind::Unpark,
            Op::Exit { .. } => OpKind::Exit,
            Op::ClassInit { .. } => OpKind::ClassInit,
            Op::ClassInitWait { .. } => OpKind::ClassInitWait,
        }
    }

    /// The site the operation was announced from (`None` for `Begin`, `End`, `WaitReturn`).
    pub fn site(&self) -> Option<SiteId> {
        match *self {
            Op::Begin | Op::End | Op::WaitReturn { .. } => None,
            Op::Access { site, .. }
            | Op::MonitorEnter { site, .. }
            | Op::MonitorExit { site, .. }
            | Op::Wait { site, .. }
            | Op::Notify { site, .. }
            | Op::Start { site }
            | Op::Join { site, .. }
            | Op::Sleep { site, .. }
            | Op::Yield { site }
            | Op::Interrupt { site, .. }
            | Op::Interrupted { site, .. }
            | Op::IsInterrupted { site, .. }
            | Op::ThreadStatus { site, .. }
            | Op::LiveThreads { site }
            | Op::Park { site, .. }
            | Op::Unpark { site, .. }
            | Op::Exit { site, .. }
            | Op::ClassInit { site }
            | Op::ClassInitWait { site } => Some(site),
        }
    }

    /// The monitor / waited-on object, for the operations that have one.
    pub fn obj(&self) -> Option<ObjId> {
        match *self {
            Op::MonitorEnter { obj, .. }
            | Op::MonitorExit { obj, .. }
            | Op::Wait { obj, .. }
            | Op::WaitReturn { obj }
            | Op::Notify { obj, .. } => Some(obj),
            _ => None,
        }
    }

    /// The other thread the operation acts on, for the operations that have one.
    pub fn target(&self) -> Option<ThreadId> {
        match *self {
            Op::Join { target, .. }
            | Op::Interrupt { target, .. }
            | Op::IsInterrupted { target, .. }
            | Op::ThreadStatus { target, .. }
            | Op::Unpark { target, .. } => Some(target),
            _ => None,
        }
    }

    /// `true` for operations that count towards a thread's yield count (the "lower the priority
    /// of a thread that yields more than 100 times" rule): `Yield` and `Sleep`.
    pub fn is_yield_like(&self) -> bool {
        matches!(self, Op::Yield { .. } | Op::Sleep { .. })
    }

    /// `true` for the queries whose answer is the model's state of other threads
    /// ([`Op::ThreadStatus`], [`Op::LiveThreads`]): their event is labelled with the answer
    /// ([`crate::events::Event::answered`]), which no one can know before it is performed.
    pub fn is_thread_query(&self) -> bool {
        matches!(self, Op::ThreadStatus { .. } | Op::LiveThreads { .. })
    }
}

impl std::fmt::Display for Op {
    /// E.g. `write loc 12 (var 3) @site 0x…`, `monitor-enter obj 5`, `join t2 (timed)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind().as_str())?;
        match *self {
            Op::Access { loc, var, .. } => {
                write!(f, " loc {}", loc.0)?;
                if var != VarId::UNKNOWN {
                    write!(f, " (var {})", var.0)?;
                }
            }
            Op::Exit { status, .. } => write!(f, " {status}")?,
            Op::Interrupted { clear: true, .. } => f.write_str(" (clear)")?,
            _ => {
                if let Some(obj) = self.obj() {
                    write!(f, " obj {}", obj.0)?;
                }
                if let Some(t) = self.target() {
                    write!(f, " {t}")?;
                }
            }
        }
        if matches!(
            self,
            Op::Wait { timed: true, .. }
                | Op::Join { timed: true, .. }
                | Op::Park { timed: true, .. }
        ) {
            f.write_str(" (timed)")?;
        }
        if let Some(site) = self.site() {
            write!(f, " @site {site:#x}")?;
        }
        Ok(())
    }
}

/// What the thread that performs its operation is told, so the agent can reproduce Java's
/// behaviour (return a value, throw `InterruptedException`, …).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpOutcome {
    /// The operation happened as usual.
    Normal,
    /// `Wait`/`WaitReturn`/`Join`/`Sleep`: throw `InterruptedException` (the interrupt flag has
    /// been cleared, as Java does). `Park`: return (the flag stays set, as Java does).
    Interrupted,
    /// A timed `WaitReturn`/`Join`/`Park` returned because (virtual) time ran out.
    TimedOut,
    /// `Start`: the child's id.
    Started(ThreadId),
    /// `Notify`: the waiters woken (empty when the wait set was empty).
    Woke(Vec<ThreadId>),
    /// `Interrupted`/`IsInterrupted`: the answer.
    Bool(bool),
    /// `ThreadStatus`: the target's state.
    State(JavaThreadState),
    /// `LiveThreads`: how many.
    Count(u32),
    /// `MonitorExit`/`Wait`/`Notify` on a monitor the thread does not own: throw
    /// `IllegalMonitorStateException`. The model is unchanged. (An addition to the agreed shape.)
    IllegalMonitorState,
}

/// A thread's state as `Thread.getState()` names it, read off the model: what the thread is
/// doing at its pending operation. A thread the model knows has been started, so never `NEW`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JavaThreadState {
    /// Running, or ready to run (a pending operation that is not a wait).
    Runnable,
    /// Waiting to enter a monitor another thread owns (also after a notify, to re-enter).
    Blocked,
    /// In an untimed `wait`, `join` or `park` that cannot return yet.
    Waiting,
    /// In a timed `wait`, `join` or `park` that cannot return but by its timeout, or in `sleep`.
    TimedWaiting,
    /// Ended.
    Terminated,
}

impl JavaThreadState {
    /// The ordinal of the `java.lang.Thread.State` constant of the same name (`NEW` is 0).
    pub fn java_ordinal(self) -> u32 {
        match self {
            JavaThreadState::Runnable => 1,
            JavaThreadState::Blocked => 2,
            JavaThreadState::Waiting => 3,
            JavaThreadState::TimedWaiting => 4,
            JavaThreadState::Terminated => 5,
        }
    }
}

/// The scheduler's answer to [`Execution::announce`](crate::Execution::announce) and
/// [`Execution::thread_finished`](crate::Execution::thread_finished).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// `thread` performs its pending operation now (its effect is already in the model) and is
    /// the running thread until its next announcement.
    Run {
        thread: ThreadId,
        outcome: OpOutcome,
    },
    /// Every thread has finished.
    Finished,
    /// No thread is enabled while some have not finished: each blocked thread with its pending
    /// operation, in thread order.
    Deadlock { blocked: Vec<(ThreadId, Op)> },
    /// The step bound ([`Config::max_steps`](crate::Config::max_steps)) was reached: a run too
    /// long to explore, not a bug by itself.
    StepBound,
    /// Every enabled thread kept spinning for the livelock window with no write or
    /// synchronization anywhere (crate::fairness): each with the sites it spins at.
    Livelock {
        spinning: Vec<(ThreadId, Vec<SiteId>)>,
    },
    /// A thread performed [`Op::Exit`].
    Exit { status: i32 },
    /// The strategy ended the execution early (a replay diverged from its schedule, or the
    /// strategy pruned the rest). Not a bug; the agent ends the execution like after
    /// `StepBound`. (An addition to the agreed shape.)
    Stopped(Stop),
}

impl Decision {
    /// `true` for every decision that ends the execution (all but `Run`).
    pub fn is_terminal(&self) -> bool {
        !matches!(self, Decision::Run { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_display_their_operands() {
        let cases = [
            (
                Op::Access {
                    loc: Loc(12),
                    var: VarId(3),
                    write: true,
                    site: 255,
                },
                "write loc 12 (var 3) @site 0xff",
            ),
            (
                Op::MonitorEnter {
                    obj: ObjId(5),
                    site: 1,
                },
                "monitor-enter obj 5 @site 0x1",
            ),
            (
                Op::Join {
                    target: ThreadId(2),
                    timed: true,
                    nanos: 0,
                    site: 0,
                },
                "join t2 (timed) @site 0x0",
            ),
            (Op::WaitReturn { obj: ObjId(4) }, "wait-return obj 4"),
            (Op::End, "end"),
            (Op::Exit { status: 3, site: 0 }, "exit 3 @site 0x0"),
        ];
        for (op, text) in cases {
            assert_eq!(op.to_string(), text);
        }
    }
}
