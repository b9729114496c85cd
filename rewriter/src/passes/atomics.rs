//! Atomics: the `java.util.concurrent.atomic` classes (`AtomicInteger`, `AtomicLong`,
//! `AtomicBoolean`, `AtomicReference`, the three `Atomic*Array`s and the striped counters
//! `LongAdder`, `DoubleAdder`, `LongAccumulator`, `DoubleAccumulator`) announce, at the entry of
//! each public instance method, a read (`get*`) or a write (everything else: set, getAndX,
//! compareAndSet, …) of the atomic object (for an array, of the whole array: coarser than the
//! element, which only makes more pairs conflict). Each method is one indivisible step in Java,
//! so the one announcement before it is exactly the scheduling point the user expects; an atomic check-then-act (`get` then `set`)
//! then has a point in between, where a preemption finds it.
//!
//! Every site of one class names the same field (`Class.value`), so reads and writes of one
//! atomic object are one location for the agent.
//!
//! The high-level operations of the synchronizers (lock/unlock/tryLock, await/signal,
//! acquire/release, countDown, barrier await, blocking-queue put/take/offer/poll, Future.get,
//! a future's completion, …) announce a write of the synchronizer object at their entry in the
//! same way, and the ones that may wait again as they return (`may_wait`): the
//! interleaving then has the granularity users expect (a point before each such operation, not
//! only at the parks inside), and two operations on one synchronizer conflict, which
//! happens-before tracking and partial-order strategies see. The read and the write lock of one
//! `ReentrantReadWriteLock` are two objects sharing one `Sync`: both announce on that `Sync`
//! under one name, read-lock operations as reads (two readers commute) and write-lock
//! operations as writes (a writer conflicts with readers and writers); as two locations, a
//! writer's whole section between a reader's two looked independent of them, and
//! happens-before pruning dropped the schedule that runs it there.
//!
//! The field updaters' implementations (`Atomic{Integer,Long,Reference}FieldUpdater` impls)
//! announce `RC.updaterAccess(updater, target, write)` at the entry of each primitive access
//! method (the derived ones, `incrementAndGet` and the like, call a primitive one and are left
//! alone); their constructors tell `RC` the field before they return, so that `RC` announces
//! (target, field): the location of a plain `getfield` of the same field (see
//! `passes::handles`, which does the same for VarHandles and Unsafe in application code).

use super::MethodCtx;
use crate::classfile::ACC_STATIC;
use crate::code::op;
use crate::RewriteError;
use java_harness::hooks::{Hook, SiteKind};

const ACC_PUBLIC: u16 = 0x0001;

/// The atomic classes and the descriptor of their value (the key of the announced location).
const ATOMICS: &[(&str, &str)] = &[
    ("java/util/concurrent/atomic/AtomicInteger", "I"),
    ("java/util/concurrent/atomic/AtomicLong", "J"),
    ("java/util/concurrent/atomic/AtomicBoolean", "I"),
    (
        "java/util/concurrent/atomic/AtomicReference",
        "Ljava/lang/Object;",
    ),
    ("java/util/concurrent/atomic/AtomicIntegerArray", "[I"),
    ("java/util/concurrent/atomic/AtomicLongArray", "[J"),
    (
        "java/util/concurrent/atomic/AtomicReferenceArray",
        "[Ljava/lang/Object;",
    ),
    // The striped counters: their cells are private, CAS'd through VarHandles; one location
    // per counter, as for the others (`add` and `accumulate` write it, `sum` and `get` read it).
    ("java/util/concurrent/atomic/LongAdder", "J"),
    ("java/util/concurrent/atomic/DoubleAdder", "D"),
    ("java/util/concurrent/atomic/LongAccumulator", "J"),
    ("java/util/concurrent/atomic/DoubleAccumulator", "D"),
];

/// Methods that only read the value.
const READS: &[&str] = &["get", "getPlain", "getOpaque", "getAcquire", "sum"];

/// Methods left alone: constructors, `length` (of an array that never changes), and the ones
/// that call an announced method themselves.
const SKIPPED: &[&str] = &[
    "<init>",
    "length",
    // `LongAdder`'s, which call its `add`.
    "increment",
    "decrement",
    "toString",
    "intValue",
    "longValue",
    "floatValue",
    "doubleValue",
    "byteValue",
    "shortValue",
];

const JUC: &str = "java/util/concurrent/";

/// Synchronizer classes (under `java/util/concurrent/`) and their announced operations.
const SYNC_OPS: &[(&str, &[&str])] = &[
    (
        "locks/ReentrantLock",
        &["lock", "lockInterruptibly", "tryLock", "unlock"],
    ),
    (
        "locks/ReentrantReadWriteLock$ReadLock",
        &["lock", "lockInterruptibly", "tryLock", "unlock"],
    ),
    (
        "locks/ReentrantReadWriteLock$WriteLock",
        &["lock", "lockInterruptibly", "tryLock", "unlock"],
    ),
    (
        "locks/AbstractQueuedSynchronizer$ConditionObject",
        &[
            "await",
            "awaitNanos",
            "awaitUninterruptibly",
            "awaitUntil",
            "signal",
            "signalAll",
        ],
    ),
    (
        "Semaphore",
        &["acquire", "acquireUninterruptibly", "tryAcquire", "release"],
    ),
    ("CountDownLatch", &["countDown", "await"]),
    ("CyclicBarrier", &["await"]),
    ("Exchanger", &["exchange"]),
    (
        "Phaser",
        &[
            "arrive",
            "arriveAndAwaitAdvance",
            "arriveAndDeregister",
            "awaitAdvance",
            "awaitAdvanceInterruptibly",
        ],
    ),
    ("ArrayBlockingQueue", &["put", "take", "offer", "poll"]),
    ("LinkedBlockingQueue", &["put", "take", "offer", "poll"]),
    (
        "LinkedBlockingDeque",
        &[
            "put",
            "take",
            "offer",
            "poll",
            "putFirst",
            "putLast",
            "takeFirst",
            "takeLast",
        ],
    ),
    ("PriorityBlockingQueue", &["put", "take", "offer", "poll"]),
    ("SynchronousQueue", &["put", "take", "offer", "poll"]),
    (
        "LinkedTransferQueue",
        &["put", "take", "offer", "poll", "transfer"],
    ),
    ("DelayQueue", &["put", "take", "offer", "poll"]),
    // A task's completion too (`set`, `setException`: protected, called by `run` once the
    // task's work is done), so that a `get` that finds the task done is ordered after that
    // work although it never parks.
    ("FutureTask", &["get", "cancel", "set", "setException"]),
    // A fork/join task's completion (`setDone`, private: the task's work is done) and its
    // joins, also announced as they return (below): a parallel stream's caller that finds
    // its tasks done, or helps run them, never parks, and nothing else ordered the workers'
    // work before what the caller does next.
    ("ForkJoinTask", &["join", "invoke", "get", "setDone"]),
    // A counted completer's pending count, which the last of its subtasks to finish brings
    // to zero and so completes it (a parallel stream's tasks): announced on the completer the
    // count belongs to, so its subtasks' work is ordered before its completion.
    (
        "CountedCompleter",
        &[
            "addToPendingCount",
            "compareAndSetPendingCount",
            "weakCompareAndSetPendingCount",
            "decrementPendingCountUnlessZero",
        ],
    ),
    (
        "CompletableFuture",
        &[
            "get",
            "join",
            "complete",
            "completeExceptionally",
            // Likewise the package-private completions of async tasks and dependent stages.
            "completeValue",
            "completeNull",
            "completeThrowable",
            "completeRelay",
        ],
    ),
];

/// Synchronizer classes whose operations announce the location of another class's: a counted
/// completer's count and its completion (`ForkJoinTask.setDone`) are one location, so that the
/// count's last decrement orders what came before it before the completion and the join.
const SAME_LOCATION_AS: &[(&str, &str)] = &[("CountedCompleter", "ForkJoinTask")];

/// The location detail of a synchronizer operation `name` of class `class`, if it is one.
pub fn sync_op(class: &str, name: &str) -> Option<String> {
    let short = class.strip_prefix(JUC)?;
    SYNC_OPS
        .iter()
        .find(|(c, ops)| *c == short && ops.contains(&name))
        .map(|_| {
            let owner = SAME_LOCATION_AS
                .iter()
                .find(|(c, _)| *c == short)
                .map_or(short, |&(_, other)| other);
            format!("{JUC}{owner}.sync")
        })
}

/// The `Allocated`-style detail of the atomic class `class`, if it is one.
pub fn value_field(class: &str) -> Option<String> {
    ATOMICS
        .iter()
        .find(|(c, _)| *c == class)
        .map(|(c, d)| format!("{c}.value:{d}"))
}

/// Whether `name` of an atomic class reads (true) or writes (false), or is not announced.
pub fn announces(name: &str) -> Option<bool> {
    if SKIPPED.contains(&name) {
        return None;
    }
    Some(READS.contains(&name))
}

/// The field-updater implementations, with the constructor's parameter slots of the target
/// class, the field name and (for references) the field type.
const UPDATERS: &[(&str, [u8; 3])] = &[
    (
        "java/util/concurrent/atomic/AtomicIntegerFieldUpdater$AtomicIntegerFieldUpdaterImpl",
        [1, 2, 0],
    ),
    (
        "java/util/concurrent/atomic/AtomicLongFieldUpdater$CASUpdater",
        [1, 2, 0],
    ),
    (
        "java/util/concurrent/atomic/AtomicLongFieldUpdater$LockedUpdater",
        [1, 2, 0],
    ),
    (
        "java/util/concurrent/atomic/AtomicReferenceFieldUpdater$AtomicReferenceFieldUpdaterImpl",
        [1, 3, 2],
    ),
];

/// The read and write locks of one `ReentrantReadWriteLock` share its `sync` object: both
/// announce their operations on it, as one location (read-lock operations as reads, which
/// commute with each other; write-lock operations as writes, which conflict with both).
const RW_LOCKS: &[&str] = &[
    "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock",
    "java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock",
];
const RW_LOCATION: &str = "java/util/concurrent/locks/ReentrantReadWriteLock.sync";

const ALOAD: u8 = 0x19;

/// `aload slot` (slot < 256).
fn aload(slot: u8) -> [u8; 2] {
    [ALOAD, slot]
}

/// Field updaters: each access method announces (updater, target) at its entry, a read for
/// `get` and a write otherwise (`RC.updaterAccess` turns it into (target, field) once the
/// updater is known); the constructor tells `RC` the updater's field before it returns.
fn updater(ctx: &mut MethodCtx, slots: [u8; 3]) -> Result<(), RewriteError> {
    if ctx.method_name == "<init>" {
        for i in 0..ctx.code.insns.len() {
            if ctx.code.insns[i].op != op::RETURN {
                continue;
            }
            let mut v = vec![op::ALOAD_0];
            v.extend(aload(slots[0]));
            v.extend(aload(slots[1]));
            if slots[2] == 0 {
                v.push(op::ACONST_NULL);
            } else {
                v.extend(aload(slots[2]));
            }
            let bci = ctx.code.insns[i].offset;
            let detail = ctx.class_name.to_string();
            v.extend(ctx.site_and_hook(
                SiteKind::Call(Hook::UpdaterCreated),
                bci,
                detail,
                Hook::UpdaterCreated,
            )?);
            ctx.edits.before[i].extend(v);
        }
        ctx.edits.need_stack(6);
        return Ok(());
    }
    if ctx.access & ACC_STATIC != 0 || ctx.access & ACC_PUBLIC == 0 || delegates(ctx) {
        return Ok(());
    }
    let write = ctx.method_name != "get";
    let mut v = vec![op::ALOAD_0];
    v.extend(aload(1));
    v.push(if write { 0x04 } else { 0x03 });
    let detail = format!("{}.{}", ctx.class_name, ctx.method_name);
    let site = ctx.site(SiteKind::Call(Hook::UpdaterAccess), 0, detail)?;
    v.extend(&site);
    v.extend(ctx.call_hook(Hook::UpdaterAccess)?);
    ctx.edits.prologue.extend(v);
    ctx.edits.need_stack(5);
    if is_compare_and_set(&ctx.method_name, &ctx.descriptor) {
        cas_result(ctx, &site)?;
    }
    Ok(())
}

/// The updater access methods that others delegate to (`incrementAndGet` is
/// `getAndAdd(obj, 1) + 1`).
const UPDATER_PRIMITIVES: &[&[u8]] = &[
    b"get",
    b"set",
    b"lazySet",
    b"compareAndSet",
    b"weakCompareAndSet",
    b"getAndSet",
    b"getAndAdd",
];

/// True when the method calls one of its own class's access methods, which announces: a second
/// announcement would only add a scheduling point where nothing happens.
fn delegates(ctx: &MethodCtx) -> bool {
    let code = ctx.code;
    (0..code.insns.len()).any(|i| {
        code.insns[i].op == op::INVOKEVIRTUAL
            && ctx.cp.member(code.cp_operand(i)).is_ok_and(|m| {
                m.owner == ctx.class_name.as_bytes() && UPDATER_PRIMITIVES.contains(&m.name)
            })
    })
}

/// `aload_0; getfield sync` of a read or write lock, from the `getfield` the method itself
/// does (every announced operation delegates to `sync`); `None` if it does none.
fn rw_lock_sync(ctx: &MethodCtx) -> Option<Vec<u8>> {
    let code = ctx.code;
    (0..code.insns.len()).find_map(|i| {
        let m = (code.insns[i].op == op::GETFIELD)
            .then(|| ctx.cp.member(code.cp_operand(i)).ok())
            .flatten()?;
        (m.name == b"sync" && m.owner == ctx.class_name.as_bytes())
            .then(|| code.bytes_of(i).to_vec())
    })
}

/// Where a task's or a stage's own throwable is kept in its future (the throwable is the
/// first parameter): `FutureTask.setException` (a pool's task), and the one-argument
/// `CompletableFuture.completeThrowable` (an async task's or a dependent stage's function
/// threw; a stage that only passes a throwable on uses the two-argument one).
const TASK_FAILURES: &[(&str, &str, &str)] = &[
    (
        "java/util/concurrent/FutureTask",
        "setException",
        "(Ljava/lang/Throwable;)V",
    ),
    (
        "java/util/concurrent/CompletableFuture",
        "completeThrowable",
        "(Ljava/lang/Throwable;)Z",
    ),
];

/// `aload_1; ldc2_w site; invokestatic RC.taskFailed` first in the methods of [`TASK_FAILURES`].
fn task_failure(ctx: &mut MethodCtx) -> Result<(), RewriteError> {
    let known = TASK_FAILURES
        .iter()
        .any(|&(c, m, d)| c == ctx.class_name && m == ctx.method_name && d == ctx.descriptor);
    if !known || ctx.access & ACC_STATIC != 0 {
        return Ok(());
    }
    let mut v = aload(1).to_vec();
    let detail = format!("{}.{}", ctx.class_name, ctx.method_name);
    v.extend(ctx.site_and_hook(
        SiteKind::Call(Hook::TaskFailed),
        0,
        detail,
        Hook::TaskFailed,
    )?);
    ctx.edits.prologue.extend(v);
    ctx.edits.need_stack(3);
    Ok(())
}

pub fn on_method_entry(ctx: &mut MethodCtx) -> Result<(), RewriteError> {
    if let Some(&(_, slots)) = UPDATERS.iter().find(|(c, _)| *c == ctx.class_name) {
        return updater(ctx, slots);
    }
    // Before the synchronizer's announcement: the failure is noted before the scheduling
    // point that may hand the turn to the thread that goes on without the task's work.
    task_failure(ctx)?;
    let synchronizer = sync_op(ctx.class_name, &ctx.method_name).is_some();
    // Only public methods: the inner ones a public one calls would announce it twice. The
    // synchronizer operations are named one by one, non-public completions among them.
    if ctx.access & ACC_STATIC != 0 || (ctx.access & ACC_PUBLIC == 0 && !synchronizer) {
        return Ok(());
    }
    let mut target = vec![op::ALOAD_0];
    let (detail, read) = if let Some(detail) = sync_op(ctx.class_name, &ctx.method_name) {
        match rw_lock_sync(ctx).filter(|_| RW_LOCKS.contains(&ctx.class_name)) {
            Some(getfield) => {
                target.extend(getfield);
                (RW_LOCATION.to_string(), ctx.class_name == RW_LOCKS[0])
            }
            None => (detail, false),
        }
    } else if let Some(detail) = value_field(ctx.class_name) {
        let Some(read) = announces(&ctx.method_name) else {
            return Ok(());
        };
        (detail, read)
    } else {
        return Ok(());
    };
    let (kind, hook) = if read {
        (SiteKind::FieldRead, Hook::FieldRead)
    } else {
        (SiteKind::FieldWrite, Hook::FieldWrite)
    };
    let mut v = target.clone();
    let site = ctx.site(kind, 0, detail.clone())?;
    v.extend(&site);
    v.extend(ctx.call_hook(hook)?);
    ctx.edits.prologue.extend(v);
    ctx.edits.need_stack(3);
    if !synchronizer && is_compare_and_set(&ctx.method_name, &ctx.descriptor) {
        cas_result(ctx, &site)?;
    }
    if synchronizer && may_wait(&ctx.method_name) {
        for i in 0..ctx.code.insns.len() {
            let insn = &ctx.code.insns[i];
            if (op::IRETURN..=op::RETURN).contains(&insn.op) {
                let mut v = target.clone();
                v.extend(ctx.site_and_hook(kind, insn.offset, detail.clone(), hook)?);
                ctx.edits.before[i].extend(v);
            }
        }
    }
    Ok(())
}

/// Whether method `name` of `descriptor` (an atomic's, an updater's, a VarHandle's or
/// `Unsafe`'s) is a compare-and-set that answers whether it wrote (`compareAndExchange`
/// answers with the value it found: no report, its write stays one).
pub(super) fn is_compare_and_set(name: &str, descriptor: &str) -> bool {
    (name.starts_with("compareAndSet")
        || name.starts_with("weakCompareAndSet")
        || name.starts_with("compareAndSwap"))
        && descriptor.ends_with(")Z")
}

/// `dup; ldc2_w site; invokestatic RC.casResult` before each `ireturn` of a compare-and-set
/// whose entry announced its write at `site` (the `ldc2_w` of that announcement): the agent
/// hears which ones failed (they wrote nothing).
fn cas_result(ctx: &mut MethodCtx, site: &[u8]) -> Result<(), RewriteError> {
    let report = cas_report(ctx, site)?;
    for i in 0..ctx.code.insns.len() {
        if ctx.code.insns[i].op == op::IRETURN {
            ctx.edits.before[i].extend(&report);
        }
    }
    ctx.edits.need_stack(4);
    Ok(())
}

/// `dup; ldc2_w site; invokestatic RC.casResult`, with the boolean result on the stack.
pub(super) fn cas_report(ctx: &mut MethodCtx, site: &[u8]) -> Result<Vec<u8>, RewriteError> {
    let mut v = vec![op::DUP];
    v.extend(site);
    v.extend(ctx.call_hook(Hook::CasResult)?);
    Ok(v)
}

/// Synchronizer operations that only let others go on (a release, an arrival that does not
/// wait), besides a future's completions (`complete…`) and a counted completer's pending-count
/// updates; every other one may wait for another thread.
const RELEASES: &[&str] = &[
    "unlock",
    "signal",
    "signalAll",
    "release",
    "countDown",
    "arrive",
    "arriveAndDeregister",
    "cancel",
    "set",
    "setException",
    "setDone",
];

/// Whether the announcement of synchronizer operation `name` of `class` (internal name) at its
/// entry is an acquisition of a lock or a permit, which another thread may hold: with other
/// threads running it is a scheduling point even while one thread alone has used the lock
/// (the agent's confinement leaves such uses without a point), since a thread preempted
/// between two acquisitions is how a lock-order deadlock happens.
pub fn acquires(class: &str, name: &str) -> bool {
    sync_op(class, name).is_some()
        && matches!(
            name,
            "lock"
                | "lockInterruptibly"
                | "tryLock"
                | "acquire"
                | "acquireUninterruptibly"
                | "tryAcquire"
        )
}

/// Whether synchronizer operation `name` may wait for another thread, and so is announced
/// again as it returns. Its entry's announcement comes before the check that finds it must
/// wait; when a scheduling point inside (an interrupt check, a spin) lets the releasing
/// thread run, the operation may find the release on its next check and return without
/// parking, so no unpark orders the release before what the waiter does next: a future's
/// `get` that read "not done", checked for an interrupt while the task completed, then read
/// "done". The announcement at the return comes after the releaser's, whoever entered first.
fn may_wait(name: &str) -> bool {
    !(RELEASES.contains(&name) || name.starts_with("complete") || name.contains("PendingCount"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_writes_and_skipped_methods() {
        assert_eq!(announces("get"), Some(true));
        assert_eq!(announces("getAcquire"), Some(true));
        assert_eq!(announces("set"), Some(false));
        assert_eq!(announces("compareAndSet"), Some(false));
        assert_eq!(announces("incrementAndGet"), Some(false));
        assert_eq!(announces("<init>"), None);
        assert_eq!(announces("intValue"), None);
        assert_eq!(
            value_field("java/util/concurrent/atomic/AtomicLong").as_deref(),
            Some("java/util/concurrent/atomic/AtomicLong.value:J")
        );
        assert_eq!(
            value_field("java/util/concurrent/atomic/LongAdder").as_deref(),
            Some("java/util/concurrent/atomic/LongAdder.value:J")
        );
        assert_eq!(announces("sum"), Some(true));
        assert_eq!(announces("add"), Some(false));
        assert_eq!(announces("increment"), None);
        assert_eq!(value_field("java/util/concurrent/atomic/Striped64"), None);
        assert!(value_field("java/util/concurrent/atomic/AtomicIntegerArray").is_some());
        assert_eq!(announces("length"), None);
        assert!(sync_op("java/util/concurrent/locks/ReentrantLock", "unlock").is_some());
        assert!(sync_op("java/util/concurrent/CountDownLatch", "getCount").is_none());
        assert!(sync_op("java/util/concurrent/FutureTask", "set").is_some());
        assert_eq!(
            sync_op(
                "java/util/concurrent/CountedCompleter",
                "weakCompareAndSetPendingCount"
            ),
            sync_op("java/util/concurrent/ForkJoinTask", "setDone")
        );
        assert!(sync_op("java/util/concurrent/FutureTask", "run").is_none());
        assert!(sync_op("java/util/concurrent/Semaphore$NonfairSync", "release").is_none());
    }

    #[test]
    fn acquisitions_are_of_locks_and_permits() {
        assert!(acquires("java/util/concurrent/locks/ReentrantLock", "lock"));
        assert!(acquires(
            "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock",
            "tryLock"
        ));
        assert!(acquires("java/util/concurrent/Semaphore", "acquire"));
        assert!(!acquires(
            "java/util/concurrent/locks/ReentrantLock",
            "unlock"
        ));
        assert!(!acquires("java/util/concurrent/CountDownLatch", "await"));
        assert!(!acquires("p/MyLock", "lock"));
    }

    #[test]
    fn compare_and_sets_are_the_boolean_ones() {
        assert!(is_compare_and_set("compareAndSet", "(II)Z"));
        assert!(is_compare_and_set("weakCompareAndSetVolatile", "(JJ)Z"));
        assert!(!is_compare_and_set("compareAndExchange", "(II)I"));
        assert!(!is_compare_and_set("getAndSet", "(I)I"));
    }

    #[test]
    fn waiting_operations_are_the_ones_that_release_nothing() {
        for op in [
            "lockInterruptibly",
            "await",
            "acquire",
            "take",
            "get",
            "join",
            "exchange",
        ] {
            assert!(may_wait(op), "{op}");
        }
        for release in ["completeRelay", "weakCompareAndSetPendingCount"] {
            assert!(!may_wait(release), "{release}");
        }
        // Every release names an announced operation (no stale entry hides a waiting one).
        for release in RELEASES {
            assert!(!may_wait(release));
            assert!(
                SYNC_OPS.iter().any(|(_, ops)| ops.contains(release)),
                "{release}"
            );
        }
    }
}
