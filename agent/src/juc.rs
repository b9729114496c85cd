//! Which scheduling points in rewritten `java.util.concurrent` code are the application's.
//!
//! The JDK uses `java.util.concurrent` for itself too: method-handle and lambda caches, class
//! loading, static initializers. Those uses run on application threads but only the first time
//! something happens in a JVM (a cold cache, a class initialized once), so if they were
//! scheduling points the executions of one JVM would differ from each other and from a replay
//! in a fresh JVM. A point in a rewritten JDK class therefore counts only when the first frame
//! below the `java.util.concurrent` frames is application code (or the bottom of a pool
//! worker's stack); JDK code that only forwards the caller's operation (`AbstractQueue.add`
//! calling `offer`, `String.valueOf` calling `toString`: `CALL_FORWARDING_CLASSES`) is
//! looked through. Under other JDK code, or under a JDK static initializer, the hook does the
//! real operation, as for a thread rankcheck does not control.
//!
//! Also here: the natives of `RC`'s handle hooks (`nAccessField`, `nFieldKey`), for accesses
//! through VarHandles, field updaters and Unsafe whose field is known only at run time (see
//! `rewriter::passes::handles` for the locations chosen and why).

use crate::jvmti::Jvmti;
use crate::platform::is_jdk_class;
use java_harness::hooks::{site_class_key, site_id};
use jni::sys::jmethodID;
use rustc_hash::FxHashMap as IdMap;
use std::cell::RefCell;
use std::sync::{Mutex, OnceLock, RwLock};

/// What a stack frame's method is, for [`internal_use`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// rankcheck's runtime, `java.util.concurrent`, `Thread.run`: look further down.
    Through,
    /// The application: the point counts.
    App,
    /// JDK code that only programs use (the pipes, `jdk_classes::PIPE_CLASSES`): the point
    /// counts, whatever JDK stream decorates the pipe (`DataInputStream`, `BufferedReader`),
    /// but the frame is not where the program called (`program_caller` looks further).
    ProgramsOnly,
    /// Other JDK code, or a JDK static initializer: the point does not count.
    Internal,
}

/// What a site in a rewritten JDK class lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JdkSite {
    /// A collection or format of `collections=on` (`jdk_classes::is_collection_target`).
    Collection,
    /// Anything else rewritten: `java.util.concurrent`'s locks, queues and futures, whose own
    /// accesses the model's operations stand for, the Timer, the clocks.
    Synchronizer,
}

/// Site-id class keys of the JDK classes rewritten at load time, with what each is.
fn jdk_keys() -> &'static RwLock<IdMap<u64, JdkSite>> {
    static KEYS: OnceLock<RwLock<IdMap<u64, JdkSite>>> = OnceLock::new();
    KEYS.get_or_init(|| RwLock::new(IdMap::default()))
}

/// Frame kinds by method, shared by all threads (each thread also keeps its own copy in
/// [`LOCAL`], so the hot path takes no lock).
fn frames() -> &'static Mutex<IdMap<usize, Frame>> {
    static FRAMES: OnceLock<Mutex<IdMap<usize, Frame>>> = OnceLock::new();
    FRAMES.get_or_init(|| Mutex::new(IdMap::default()))
}

/// What one thread has learnt: frame kinds by method, for each JDK site how many frames
/// (below the runtime's two) the last decision there needed and how deep the program's frame
/// lay, and which application methods the program's author wrote.
#[derive(Default)]
struct Local {
    frames: IdMap<usize, Frame>,
    depths: IdMap<i64, usize>,
    /// Application methods by whether the program's author wrote them
    /// ([`written_by_the_program`]).
    written: IdMap<usize, bool>,
    /// For each JDK site, how deep below the runtime's frames the program's frame lay last
    /// time ([`program_caller`]).
    caller_depths: IdMap<i64, usize>,
}

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::new(Local::default());
}

/// Records that the JDK class `name` was rewritten (its sites are JDK sites).
pub fn note_jdk_class(name: &str) {
    let kind = if crate::jdk_classes::is_collection_target(name) {
        JdkSite::Collection
    } else {
        JdkSite::Synchronizer
    };
    jdk_keys()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(site_class_key(site_id(name, 0)), kind);
}

/// What `site` lies in, when it lies in a rewritten JDK class (one lookup: the data hooks
/// ask it at every access).
pub fn jdk_site(site: i64) -> Option<JdkSite> {
    jdk_keys()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&site_class_key(site))
        .copied()
}

/// Whether `site` lies in a rewritten JDK class.
pub fn is_jdk_site(site: i64) -> bool {
    jdk_site(site).is_some()
}

/// Every scheduling point enters the agent through a native of `RC` called by a method of
/// `RC`: those two frames are `Through` and need no method id.
const RUNTIME_FRAMES: usize = 2;

/// Frames walked at first when a site has no remembered depth yet.
const FIRST_WALK: usize = 10;

/// True when `site` lies in a rewritten JDK class and the current use is the JDK's own (see the
/// module doc): the caller then does the real operation.
pub fn internal_use(jvmti: Jvmti, site: i64) -> bool {
    if !is_jdk_site(site) {
        return false;
    }
    // The stack walk is most of the cost of a java.util.concurrent scheduling point (HotSpot
    // pays per frame walked, inlined frames included), so walk only as deep as the deciding
    // frame lay the last time at this site, plus one, and the whole stack only when that
    // does not decide. A site is usually reached the same way, so this is usually one short
    // walk; a wrong guess costs a second walk, never a wrong answer.
    let remembered = LOCAL.with(|l| l.borrow().depths.get(&site).copied());
    let want = remembered.map_or(FIRST_WALK, |d| d + 1);
    let mut near = [std::ptr::null_mut(); FIRST_WALK + 8];
    let near = &mut near[..want.min(FIRST_WALK + 8)];
    let n = jvmti.current_methods_from(RUNTIME_FRAMES, near);
    let mut decided = decide(jvmti, &near[..n]);
    if decided.is_none() && n == near.len() {
        let mut all = [std::ptr::null_mut(); 64];
        let n = jvmti.current_methods_from(RUNTIME_FRAMES, &mut all);
        decided = decide(jvmti, &all[..n]);
    }
    match decided {
        Some((internal, at)) => {
            if remembered != Some(at) {
                LOCAL.with(|l| l.borrow_mut().depths.insert(site, at));
            }
            internal
        }
        // No frame decides: the stack ended in `Through` frames (a pool worker's bottom).
        None => false,
    }
}

/// Whether the current thread's innermost deciding frame (below the runtime's) is JDK or
/// test-framework code rather than the program's, whatever the site (a whole-stack walk).
pub fn under_jdk_code(jvmti: Jvmti) -> bool {
    let mut all = [std::ptr::null_mut(); 64];
    let n = jvmti.current_methods_from(RUNTIME_FRAMES, &mut all);
    decide(jvmti, &all[..n]).is_some_and(|(internal, _)| internal)
}

/// Whether the current access, at a JDK site, is a library's own bookkeeping rather than the
/// program's use: below the accessing class's frames and above the first application frame
/// (or the bottom of a worker's stack) lies a frame of another class (`AtomicInteger.get`
/// under `ThreadPoolExecutor.execute`, a queue's count under `take`), other than a collection
/// or format working on the object the program called. Reports never name such an access as
/// a failure's cause. A whole-stack walk: asked only when a trace is kept.
pub fn library_internal(jvmti: Jvmti) -> bool {
    let mut all = [std::ptr::null_mut(); 64];
    let n = jvmti.current_methods_from(RUNTIME_FRAMES, &mut all);
    let mut accessing: Option<String> = None;
    for &m in &all[..n] {
        if frame(jvmti, m) != Frame::Through {
            return false;
        }
        let Some(class) = class_of(jvmti, m) else {
            continue;
        };
        let outer = class.split(['$', '.']).next().unwrap_or(&class).to_string();
        if outer == "java/lang/Thread" {
            continue;
        }
        match &accessing {
            None => accessing = Some(outer),
            // A collection or format calling another (`HashSet` its `HashMap`,
            // `SimpleDateFormat` its `Calendar`, a synchronized wrapper its list), or reached
            // through an abstract base's method (`AbstractCollection.isEmpty` calling
            // `LinkedList.size`), works on the program's object: a race there is the program's.
            Some(a)
                if *a != outer
                    && !crate::jdk_classes::is_collection_family(&class)
                    && !(crate::jdk_classes::is_collection_family(a)
                        && crate::jdk_classes::is_in(CALL_FORWARDING_CLASSES, &class)) =>
            {
                return true
            }
            Some(_) => {}
        }
    }
    false
}

/// The program's frame under the current operation at JDK site `site`: the innermost
/// application frame, where the program called into the JDK (`Main.book` at `Main.java:10`
/// for a read inside `AtomicInteger.get`), as its method and location. Asked only when a trace
/// is kept, but then at every such operation, confined collections' included.
pub fn program_caller(jvmti: Jvmti, site: i64) -> Option<(jmethodID, jni::sys::jlong)> {
    // As in `internal_use`: HotSpot pays per frame walked, and a site is usually reached the
    // same way, so walk as deep as the frame lay last time here, and further only if needed.
    let app = |m| frame(jvmti, m) == Frame::App && written_by_the_program(jvmti, m);
    let remembered = LOCAL.with(|l| l.borrow().caller_depths.get(&site).copied());
    let want = remembered.map_or(FIRST_WALK, |d| d + 1);
    let found = match jvmti.current_frame_where(RUNTIME_FRAMES, want, app) {
        Err(true) => jvmti.current_frame_where(RUNTIME_FRAMES, 64, app),
        other => other,
    };
    let (depth, method, at) = found.ok()?;
    if remembered != Some(depth) {
        LOCAL.with(|l| l.borrow_mut().caller_depths.insert(site, depth));
    }
    Some((method, at))
}

/// Whether an application method is one the program's author wrote: not a bridge the
/// rewriter added (`rankcheck$…`, no source line) nor a lambda's hidden class (named by an
/// address), whose place would tell a reader nothing. Cached per thread.
fn written_by_the_program(jvmti: Jvmti, method: jmethodID) -> bool {
    if let Some(w) = LOCAL.with(|l| l.borrow().written.get(&(method as usize)).copied()) {
        return w;
    }
    let synthetic = method_name(jvmti, method).is_some_and(|n| n.starts_with("rankcheck$"))
        || class_of(jvmti, method).is_some_and(|c| c.contains("$$Lambda"));
    LOCAL.with(|l| l.borrow_mut().written.insert(method as usize, !synthetic));
    !synthetic
}

/// Whether the program itself calls the collection the current access is in: below the
/// frames of the JDK's collections (their views and the `Collections.synchronized*`
/// wrappers) lies an application frame, not a library's (a pool's worker set under
/// `ThreadPoolExecutor`, a stream's partial results under its combiner), whose own
/// synchronization the model may not see. A whole-stack walk: asked only when a collection a
/// thread used alone becomes shared (confinement.rs).
pub fn program_calls_collection(jvmti: Jvmti) -> bool {
    first_frame_outside_is_app(jvmti, crate::jdk_classes::is_collection_family)
}

/// Whether the program itself calls the lock or semaphore the current acquisition is of: the
/// first frame below the `java.util.concurrent` lock classes is an application frame (the
/// program's or a library's: guava's `Striped`), not the JDK's own (a pool's main lock under
/// `ThreadPoolExecutor.addWorker`, a queue's lock under `offer`), whose locks never nest
/// the other way round. A whole-stack walk: asked only of an acquisition no other thread's
/// use made a point already.
pub fn program_calls_lock(jvmti: Jvmti) -> bool {
    first_frame_outside_is_app(jvmti, |class| {
        class.starts_with("java/util/concurrent/locks/")
            || class.starts_with("java/util/concurrent/Semaphore")
    })
}

/// Whether the first frame (below the runtime's) whose class is not `inside` is an application
/// frame. A short walk first (the family is a few frames deep), the whole stack only when the
/// short one ends inside the family: HotSpot pays for every frame a walk asks for.
fn first_frame_outside_is_app(jvmti: Jvmti, inside: impl Fn(&str) -> bool) -> bool {
    let decide = |frames: &[jmethodID]| {
        frames.iter().find_map(|&m| {
            let family = class_of(jvmti, m).is_some_and(|class| inside(&class));
            (!family).then(|| frame(jvmti, m) == Frame::App)
        })
    };
    let mut near = [std::ptr::null_mut(); FIRST_WALK];
    let n = jvmti.current_methods_from(RUNTIME_FRAMES, &mut near);
    if let Some(app) = decide(&near[..n]) {
        return app;
    }
    if n < near.len() {
        return false;
    }
    let mut all = [std::ptr::null_mut(); 64];
    let n = jvmti.current_methods_from(RUNTIME_FRAMES, &mut all);
    decide(&all[..n]).unwrap_or(false)
}

/// The first frame that is not `Through` decides (innermost first): whether it is internal,
/// and its index; `None` if there is none.
fn decide(jvmti: Jvmti, methods: &[jmethodID]) -> Option<(bool, usize)> {
    methods
        .iter()
        .enumerate()
        .find_map(|(i, &m)| match frame(jvmti, m) {
            Frame::Through => None,
            Frame::App | Frame::ProgramsOnly => Some((false, i)),
            Frame::Internal => Some((true, i)),
        })
}

fn frame(jvmti: Jvmti, method: jmethodID) -> Frame {
    if let Some(f) = LOCAL.with(|l| l.borrow().frames.get(&(method as usize)).copied()) {
        return f;
    }
    let f = *frames()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(method as usize)
        .or_insert_with(
            || match (class_of(jvmti, method), method_name(jvmti, method)) {
                (Some(class), Some(name)) => classify(&class, &name),
                _ => Frame::Through,
            },
        );
    LOCAL.with(|l| l.borrow_mut().frames.insert(method as usize, f));
    f
}

/// The kind of a frame of method `name` of class `class` (internal name; a hidden class's name
/// has a `.` suffix).
fn classify(class: &str, name: &str) -> Frame {
    if (crate::jdk_classes::is_in(crate::jdk_classes::PIPE_CLASSES, class)
        || is_test_body_runner(class))
        && name != "<clinit>"
    {
        return Frame::ProgramsOnly;
    }
    if crate::jdk_classes::is_modelled_jdk_class(class.split('.').next().unwrap_or(class)) {
        return if name == "<clinit>" {
            Frame::Internal
        } else {
            Frame::Through
        };
    }
    if class.starts_with("rankcheck/")
        || (class == "java/lang/Thread" && name == "run")
        || is_forwarding_jdk_class(class)
        || is_forwarding_print(class, name)
    {
        return if name == "<clinit>" {
            Frame::Internal
        } else {
            Frame::Through
        };
    }
    if is_jdk_class(class) || is_test_framework(class) {
        Frame::Internal
    } else {
        Frame::App
    }
}

/// Whether `class` is JDK code that runs the program's work on fork/join tasks: parallel
/// streams and `Arrays`' parallel operations. Their waits, forks and worker starts are the
/// program's (its tasks run there), so the decision is left to the frames below. Likewise a
/// `Cleaner` action the program runs itself (`Cleanable.clean()`, as `Timer.cancel()` does
/// to stop its thread).
fn is_forwarding_jdk_class(class: &str) -> bool {
    [
        "java/util/stream/",
        "java/util/Arrays",
        "java/util/ArrayPrefixHelpers",
        "jdk/internal/ref/PhantomCleanable",
        "jdk/internal/ref/CleanerImpl",
    ]
    .iter()
    .any(|p| class.starts_with(p))
        || crate::jdk_classes::is_in(CALL_FORWARDING_CLASSES, class)
}

/// JDK classes (with their nested classes) whose methods do the caller's operation on the
/// caller's objects and nothing of their own: the abstract bases and interface defaults the
/// `java.util.concurrent` collections inherit (`queue.add(x)` is `AbstractQueue.add` calling
/// the queue's `offer`; `ExecutorCompletionService` hands results over that way), the
/// `Collections` helpers, and what turns an object into text (`String.valueOf` and string
/// concatenation call the queue's `toString`, which takes its locks; `println`: see
/// `is_forwarding_print`).
/// Under them the program's use stays the program's: were they internal, a queue filled
/// through `add` would wake its taker only in the JVM, never in the model.
const CALL_FORWARDING_CLASSES: &[&str] = &[
    "java/util/AbstractCollection",
    "java/util/AbstractQueue",
    "java/util/AbstractSet",
    "java/util/AbstractMap",
    "java/util/AbstractSequentialList",
    "java/util/Collection",
    "java/util/Collections",
    "java/util/Deque",
    "java/util/Iterator",
    "java/util/List",
    "java/util/Map",
    "java/util/Objects",
    "java/util/Queue",
    "java/util/Set",
    "java/util/Spliterator",
    "java/util/Spliterators",
    "java/lang/Iterable",
    "java/lang/String",
    "java/lang/StringConcatHelper",
];

/// `print` and `println` of the JDK's print streams and writers: they turn their argument into
/// text (`String.valueOf`, the object's `toString`) before they take the stream's lock. Their
/// other methods write under that lock (a JVM monitor): no point of the program may stop a
/// thread there.
fn is_forwarding_print(class: &str, name: &str) -> bool {
    crate::jdk_classes::is_in(&["java/io/PrintStream", "java/io/PrintWriter"], class)
        && matches!(name, "print" | "println")
}

/// Test-framework classes that run a test's own code on a thread of their own:
/// `assertTimeoutPreemptively` and `@Timeout(threadMode = SEPARATE_THREAD)` submit it to a
/// single-thread executor they make for the call; JUnit 4's `@Test(timeout = …)` and `Timeout`
/// rule start a thread for it (`FailOnTimeout`, rewritten at load time for that start). That
/// thread and the wait for its result are the program's (the test's code runs there), not the
/// framework's bookkeeping: before, the thread ran uncontrolled and the test was inconclusive.
const TEST_BODY_RUNNERS: &[&str] = &[
    "org/junit/jupiter/api/AssertTimeoutPreemptively",
    "org/junit/jupiter/engine/extension/SeparateThreadTimeoutInvocation",
    "org/junit/internal/runners/statements/FailOnTimeout",
];

/// Whether `class` is one of [`TEST_BODY_RUNNERS`] or nested in one.
pub fn is_test_body_runner(class: &str) -> bool {
    crate::jdk_classes::is_in(TEST_BODY_RUNNERS, class)
}

/// Whether `class` belongs to a test framework that runs the program's tests (JUnit 5's platform
/// and engines, JUnit 4, their assertion libraries). Like the JDK's own code, what such a
/// framework does with `java.util.concurrent` is its bookkeeping, done the first time in a JVM
/// and not the next, so it is no scheduling point; the test code it calls is.
pub fn is_test_framework(class: &str) -> bool {
    [
        "org/junit/",
        "junit/",
        "org/opentest4j/",
        "org/apiguardian/",
    ]
    .iter()
    .any(|p| class.starts_with(p))
}

fn method_name(jvmti: Jvmti, method: jmethodID) -> Option<String> {
    jvmti.method_name(method).map(|(name, _)| name)
}

/// The internal name of the class that declares `method`.
fn class_of(jvmti: Jvmti, method: jmethodID) -> Option<String> {
    jvmti.class_name(jvmti.declaring_class(method)?)
}

// ---- accesses through VarHandles, field updaters and Unsafe ------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_classified() {
        let lock = "java/util/concurrent/locks/ReentrantLock";
        assert_eq!(classify(lock, "lock"), Frame::Through);
        assert_eq!(classify(lock, "<clinit>"), Frame::Internal);
        assert_eq!(
            classify(
                "java/util/concurrent/CompletableFuture$$Lambda$5.0x0000000800c0b000",
                "run"
            ),
            Frame::Through
        );
        assert_eq!(classify("rankcheck/rt/RC", "park"), Frame::Through);
        assert_eq!(classify("java/lang/Thread", "run"), Frame::Through);
        assert_eq!(
            classify("java/lang/invoke/MethodType", "makeImpl"),
            Frame::Internal
        );
        assert_eq!(
            classify("java/util/concurrent/ConcurrentHashMap", "putVal"),
            Frame::Internal
        );
        assert_eq!(classify("executorrace/Main", "main"), Frame::App);
        assert_eq!(
            classify("java/io/PipedInputStream", "read"),
            Frame::ProgramsOnly
        );
        assert_eq!(
            classify("java/util/stream/ForEachOps$ForEachTask", "compute"),
            Frame::Through
        );
        assert_eq!(
            classify("java/util/stream/Collectors", "<clinit>"),
            Frame::Internal
        );
        assert_eq!(
            classify(
                "org/junit/platform/launcher/core/DefaultLauncher",
                "execute"
            ),
            Frame::Internal
        );
        assert_eq!(classify("org/junitx/Mine", "run"), Frame::App);
        assert_eq!(classify("java/util/AbstractQueue", "add"), Frame::Through);
        assert_eq!(classify("java/util/Map", "computeIfAbsent"), Frame::Through);
        assert_eq!(classify("java/lang/String", "valueOf"), Frame::Through);
        assert_eq!(classify("java/io/PrintStream", "println"), Frame::Through);
        assert_eq!(classify("java/io/PrintStream", "writeln"), Frame::Internal);
        assert_eq!(
            classify("java/lang/StringCoding", "encode"),
            Frame::Internal
        );
        assert_eq!(
            classify("java/util/ListResourceBundle", "get"),
            Frame::Internal
        );
        assert_eq!(
            classify("Main$$Lambda$14.0x0000000800c0b000", "run"),
            Frame::App
        );
    }
}
