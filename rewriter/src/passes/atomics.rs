//! Atomics: the `java.util.concurrent.atomic` classes (`AtomicInteger`, `AtomicLong`,
//! `AtomicBoolean`, `AtomicReference` and the three `Atomic*Array`s) announce, at the entry of
//! each public instance method, a read (`get*`) or a write (everything else: set, getAndX,
//! compareAndSet, …) of the atomic object (for an array, of the whole array: coarser than the
//! element, which only makes more pairs conflict). Each method is one indivisible step in Java, so the one announcement before it is
//! exactly the scheduling point the user expects; an atomic check-then-act (`get` then `set`)
//! then has a point in between, where a preemption finds it.
//!
//! Every site of one class names the same field (`Class.value`), so reads and writes of one
//! atomic object are one location for the agent.
//!
//! The high-level operations of the synchronizers (lock/unlock/tryLock, await/signal,
//! acquire/release, countDown, barrier await, blocking-queue put/take/offer/poll, Future.get,
//! …) announce a write of the synchronizer object at their entry in the same way: the
//! interleaving then has the granularity users expect (a point before each such operation, not
//! only at the parks inside), and two operations on one synchronizer conflict, which
//! happens-before tracking and partial-order strategies see.

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
];

/// Methods that only read the value.
const READS: &[&str] = &["get", "getPlain", "getOpaque", "getAcquire"];

/// Methods left alone: constructors, `length` (of an array that never changes), and the ones
/// that call an announced method themselves.
const SKIPPED: &[&str] = &[
    "<init>",
    "length",
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
    ("FutureTask", &["get", "cancel"]),
    (
        "CompletableFuture",
        &["get", "join", "complete", "completeExceptionally"],
    ),
];

/// The location detail of a synchronizer operation `name` of class `class`, if it is one.
pub fn sync_op(class: &str, name: &str) -> Option<String> {
    let short = class.strip_prefix(JUC)?;
    SYNC_OPS
        .iter()
        .find(|(c, ops)| *c == short && ops.contains(&name))
        .map(|_| format!("{class}.sync"))
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

pub fn on_method_entry(ctx: &mut MethodCtx) -> Result<(), RewriteError> {
    if ctx.access & ACC_STATIC != 0 || ctx.access & ACC_PUBLIC == 0 {
        return Ok(());
    }
    let (detail, read) = if let Some(detail) = sync_op(ctx.class_name, &ctx.method_name) {
        (detail, false)
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
    let mut v = vec![op::ALOAD_0];
    v.extend(ctx.site_and_hook(kind, 0, detail, hook)?);
    ctx.edits.prologue.extend(v);
    ctx.edits.need_stack(3);
    Ok(())
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
        assert_eq!(value_field("java/util/concurrent/atomic/LongAdder"), None);
        assert!(value_field("java/util/concurrent/atomic/AtomicIntegerArray").is_some());
        assert_eq!(announces("length"), None);
        assert!(sync_op("java/util/concurrent/locks/ReentrantLock", "unlock").is_some());
        assert!(sync_op("java/util/concurrent/CountDownLatch", "getCount").is_none());
        assert!(sync_op("java/util/concurrent/Semaphore$NonfairSync", "release").is_none());
    }
}
