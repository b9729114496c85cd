//! Which JDK classes rankcheck rewrites as they load, by name: the `java.util.concurrent`
//! classes it models, the collections of `collections=on`, the clock classes. Names only (no
//! JVM): load-time rewriting (`loadhook`) picks classes with them, the run-time classification
//! of frames (`juc`) passes through the modelled ones.

/// The JDK classes rewritten so that `java.util.concurrent` is modelled.
///
/// Excluded: the [`UNREWRITTEN_CONCURRENT_COLLECTIONS`] and `ThreadLocalRandom` (per-thread
/// seeds, nothing to model).
pub fn is_juc_target(name: &str) -> bool {
    name.starts_with("java/util/concurrent/")
        && !is_in(UNREWRITTEN_CONCURRENT_COLLECTIONS, name)
        && !is_in(&["java/util/concurrent/ThreadLocalRandom"], name)
        && !name.contains('.')
}

/// The thread-safe collections whose calls are one access each: the rewriter's lists (the
/// `RC.collectionCall` hook goes before the calls of exactly these), which the agent leaves
/// unrewritten or rewrites.
pub use rewriter::passes::collection_calls::{
    LOCKED_CONCURRENT_COLLECTIONS, UNREWRITTEN_CONCURRENT_COLLECTIONS,
};

/// The JDK collections whose field and array accesses become scheduling points with
/// `collections=on` (with their nested classes: nodes, iterators, views). Left out: classes
/// with synchronized methods (`Vector`, `Hashtable`, `StringBuffer`): their monitors are real
/// ones the model cannot see, since retransformation cannot desugar a synchronized method,
/// and a thread switch inside one would leave the other threads blocked where rankcheck cannot
/// see. (`StringBuffer` shares `AbstractStringBuilder`; its frames are not the application's,
/// so accesses under them are no scheduling points, see `juc::classify`.)
pub const COLLECTION_CLASSES: &[&str] = &[
    "java/util/AbstractList",
    "java/util/ArrayList",
    "java/util/LinkedList",
    "java/util/ArrayDeque",
    "java/util/PriorityQueue",
    "java/util/HashMap",
    "java/util/LinkedHashMap",
    "java/util/HashSet",
    "java/util/LinkedHashSet",
    "java/util/TreeMap",
    "java/util/TreeSet",
    "java/util/IdentityHashMap",
    "java/util/BitSet",
    "java/lang/AbstractStringBuilder",
    "java/lang/StringBuilder",
];

/// Other JDK classes whose objects hold mutable state between calls and are documented as
/// not thread-safe, which programs nonetheless share: a `static final SimpleDateFormat` used
/// by every thread garbles dates when one thread's `format` runs between another's
/// `calendar.setTime` and its reading the fields back; a shared `MessageDigest` mixes two
/// threads' bytes in its engine's buffer (the engines are the provider's classes, listed). Rewritten like the collections (and
/// with them), so a second thread's use of a shared one interleaves with the first's.
/// (`Calendar` and `GregorianCalendar` have synchronized methods, but only static ones and
/// `writeObject`, which a program's shared calendar does not run into.)
pub const STATEFUL_CLASSES: &[&str] = &[
    "java/text/DateFormat",
    "java/text/SimpleDateFormat",
    "java/text/NumberFormat",
    "java/text/DecimalFormat",
    "java/text/MessageFormat",
    "java/util/Calendar",
    "java/util/GregorianCalendar",
    "java/security/MessageDigest",
    "sun/security/provider/DigestBase",
    "sun/security/provider/MD5",
    "sun/security/provider/SHA",
    "sun/security/provider/SHA2",
    "sun/security/provider/SHA5",
];

/// Whether `name` (internal name, no hidden-class suffix) is one of [`COLLECTION_CLASSES`] or
/// [`STATEFUL_CLASSES`] or nested in one.
pub fn is_collection_target(name: &str) -> bool {
    is_in(COLLECTION_CLASSES, name) || is_in(STATEFUL_CLASSES, name)
}

/// The JDK classes that read the wall clock for the program (`Instant.now()`,
/// `Clock.systemUTC()`, `LocalDateTime.now()`, `new Date()`): rewritten so that their clock
/// reads are the virtual clock's, as the program's own `System.currentTimeMillis()` is; a
/// failure message or a decision that shows the time then replays.
pub const CLOCK_CLASSES: &[&str] = &["java/time/Clock", "java/util/Date"];

/// Whether `name` is one of [`CLOCK_CLASSES`] or nested in one.
pub fn is_clock_target(name: &str) -> bool {
    is_in(CLOCK_CLASSES, name)
}

/// `java.util.Timer` and the classes it runs on: its constructor starts the timer thread
/// from JDK code, which would otherwise run the program's tasks uncontrolled. Rewritten like
/// `java.util.concurrent` (thread start, monitors, waits, clock reads become the model's).
pub const TIMER_CLASSES: &[&str] = &[
    "java/util/Timer",
    "java/util/TimerThread",
    "java/util/TaskQueue",
    "java/util/TimerTask",
];

/// Whether `name` is one of [`TIMER_CLASSES`] or nested in one.
pub fn is_timer_target(name: &str) -> bool {
    is_in(TIMER_CLASSES, name)
}

/// JDK classes whose synchronized methods a program shares between threads (`v1.addAll(v2)`
/// against `v2.addAll(v1)` deadlocks inside them). Defined after rankcheck's hook is on (the
/// JVM's start-up does not load them), they get their synchronized methods desugared into the
/// model's monitors, so switches inside them are explored; retransformation cannot change a
/// method's modifiers, so a copy loaded before keeps real monitors (its blocks are still
/// rewritten). `Hashtable` and `StringBuffer` are loaded during start-up and stay as they are
/// (the program's calls of their synchronized methods are wrapped in the model's monitor by
/// the rewriter: `rewriter::hierarchy::REAL_MONITOR_CLASSES`).
pub const SYNCHRONIZED_METHOD_CLASSES: &[&str] = &["java/util/Vector", "java/util/Stack"];

/// Whether `name` is one of [`SYNCHRONIZED_METHOD_CLASSES`] or [`PIPE_CLASSES`], or nested in
/// one: classes whose synchronized methods are desugared when they are first defined.
pub fn is_synchronized_method_target(name: &str) -> bool {
    is_in(SYNCHRONIZED_METHOD_CLASSES, name) || is_in(PIPE_CLASSES, name)
}

/// The JDK's pipes: a reader waits in a synchronized method (`wait(1000)` in a loop) until a
/// writer's synchronized `receive` has put something in the buffer and called `notifyAll`.
/// With real monitors and waits a thread waiting there was out of the model's sight (exit 3,
/// "waiting in Object.wait where rankcheck cannot see it"); desugared like
/// [`SYNCHRONIZED_METHOD_CLASSES`], their waits and notifications are the model's, and their
/// `isAlive` checks of the other side (`Write end dead`) the model's threads. Not collections.
pub const PIPE_CLASSES: &[&str] = &[
    "java/io/PipedInputStream",
    "java/io/PipedOutputStream",
    "java/io/PipedReader",
    "java/io/PipedWriter",
];

/// Whether `name` is one of the wrappers of `Collections.synchronizedList` and its kin, which
/// lock their mutex in synchronized blocks (rewritable at any time).
pub fn is_synchronized_wrapper_target(name: &str) -> bool {
    name.starts_with("java/util/Collections$Synchronized")
}

/// Whether `name` (a class's whole internal name) is a collection's own class (not a format,
/// and none of the helper objects a collection or format works with: arrays, the JDK's
/// shared constants): the objects whose uses alone `confinement` counts as a blind spot.
pub fn is_collection_class(name: &str) -> bool {
    is_in(COLLECTION_CLASSES, name)
        || is_synchronized_wrapper_target(name)
        || is_in(SYNCHRONIZED_METHOD_CLASSES, name)
}

/// Whether `name` (a class's whole internal name) works on a collection or format the program
/// holds: the collections and formats themselves, `Vector` and `Stack`, the
/// `Collections.synchronized*` wrappers.
pub fn is_collection_family(name: &str) -> bool {
    is_collection_class(name) || is_in(STATEFUL_CLASSES, name)
}

/// Whether `name` is one of `classes` or nested in one (exact names: `java/util/List` is not
/// `java/util/ListResourceBundle`).
pub fn is_in(classes: &[&str], name: &str) -> bool {
    classes.iter().any(|c| {
        name.strip_prefix(c)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('$'))
    })
}

/// Whether rewritten JDK code of class `name` is modelled library code (`java.util.concurrent`
/// or a collection): its frames are passed through when deciding whose use a scheduling point
/// is (`juc::internal_use`).
pub fn is_modelled_jdk_class(name: &str) -> bool {
    is_synchronization_target(name) || is_collection_target(name)
}

/// Whether JDK class `name` is rewritten so that its synchronization (thread starts,
/// monitors, waits, `java.util.concurrent`) is the model's: `java.util.concurrent`, the Timer,
/// `Vector`/`Stack`, the pipes and the `Collections.synchronized*` wrappers.
pub fn is_synchronization_target(name: &str) -> bool {
    is_juc_target(name)
        || is_timer_target(name)
        || is_synchronized_method_target(name)
        || is_synchronized_wrapper_target(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn juc_targets() {
        assert!(is_juc_target(
            "java/util/concurrent/locks/AbstractQueuedSynchronizer"
        ));
        assert!(is_juc_target(
            "java/util/concurrent/ThreadPoolExecutor$Worker"
        ));
        assert!(is_juc_target("java/util/concurrent/atomic/AtomicInteger"));
        assert!(!is_juc_target(
            "java/util/concurrent/ConcurrentHashMap$Node"
        ));
        assert!(!is_juc_target("java/util/HashMap"));
        assert!(!is_juc_target(
            "java/util/concurrent/ThreadPoolExecutor$$Lambda$14.0x0000000800c0b000"
        ));
    }

    #[test]
    fn collection_and_clock_targets() {
        assert!(is_collection_target("java/util/HashMap"));
        assert!(is_collection_target("java/util/HashMap$KeyIterator"));
        assert!(!is_collection_target("java/util/HashMapX"));
        assert!(is_clock_target("java/time/Clock"));
        assert!(is_clock_target("java/time/Clock$SystemClock"));
        assert!(is_clock_target("java/util/Date"));
        assert!(!is_clock_target("java/util/DateFormat"));
        assert!(!is_clock_target("java/time/Instant"));
    }

    #[test]
    fn timer_targets() {
        assert!(is_timer_target("java/util/Timer"));
        assert!(is_timer_target("java/util/Timer$ThreadReaper"));
        assert!(is_timer_target("java/util/TimerThread"));
        assert!(is_timer_target("java/util/TaskQueue"));
        assert!(is_timer_target("java/util/TimerTask"));
        assert!(!is_timer_target("java/util/TimerTaskX"));
        assert!(is_modelled_jdk_class("java/util/TimerThread"));
    }

    #[test]
    fn synchronized_targets() {
        assert!(is_synchronized_method_target("java/util/Vector"));
        assert!(is_synchronized_method_target("java/util/Vector$Itr"));
        assert!(is_synchronized_method_target("java/io/PipedReader"));
        assert!(!is_collection_class("java/io/PipedReader"));
        assert!(is_synchronized_method_target("java/util/Stack"));
        assert!(!is_synchronized_method_target("java/util/Hashtable"));
        assert!(is_synchronized_wrapper_target(
            "java/util/Collections$SynchronizedRandomAccessList"
        ));
        assert!(!is_synchronized_wrapper_target(
            "java/util/Collections$UnmodifiableList"
        ));
        assert!(is_modelled_jdk_class("java/util/Vector"));
    }
}
