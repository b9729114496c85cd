//! The hook contract between the rewriter, the runtime class `rankcheck.rt.RC` and the agent.
//!
//! This is the only place where hook names, descriptors, site ids and site kinds are written
//! down. The rewriter emits calls from [`Hook::ALL`]; the agent implements what those calls do;
//! a test in this crate parses the compiled `RC.class` and checks that every hook exists with
//! exactly this descriptor, so the three cannot drift.
//!
//! Shape of every hook: a `public static` method of `rankcheck/rt/RC` whose last parameter is the
//! site id (`long`). Without the agent loaded, a hook does exactly what the original operation
//! does (or nothing, for pure announcements), so an instrumented program runs unchanged under
//! plain `java`.

/// Internal name of the runtime class every hook lives in.
pub const RC_CLASS: &str = "rankcheck/rt/RC";

/// Name of the class attribute the rewriter adds to every class it instrumented, so that neither
/// the offline rewriter nor load-time instrumentation rewrites a class twice. The JVM ignores
/// attributes it does not know (JVMS §4.7.1).
pub const INSTRUMENTED_ATTRIBUTE: &str = "rankcheck.Instrumented";

/// Prefix of the names of the static bridges the rewriter adds to a class for its calls of
/// synchronized methods of JDK classes that keep real monitors (`rankcheck$lock$0`, …: the
/// call inside the model's monitor of the receiver). Their frames are rankcheck's, not the
/// program's: the agent leaves them out of the stacks it reports.
pub const LOCK_BRIDGE_PREFIX: &str = "rankcheck$lock$";

/// Path, inside an instrumented jar (or directory), of the site table: one [`SiteRecord`] line
/// per site; a line starting with `#` is not a site (a class path instrumented for a variable set
/// carries its `#tracked` lines there, read by the agent).
pub const SITE_TABLE_RESOURCE: &str = "META-INF/rankcheck/sites.tsv";

/// Whether a site-table line holds a [`SiteRecord`] (not blank, not a `#` line).
pub fn is_site_line(line: &str) -> bool {
    let line = line.trim_start();
    !line.is_empty() && !line.starts_with('#')
}

/// Bits of a site id that hold the site's index within its class.
pub const SITE_INDEX_BITS: u32 = 24;

/// Largest number of sites one class can have.
pub const MAX_SITES_PER_CLASS: u32 = 1 << SITE_INDEX_BITS;

/// The stable id of the `index`-th site (in method order, then bytecode order) of the class
/// `class_internal_name`.
///
/// The upper 40 bits are a hash of the class name and the lower 24 bits the index, so an id
/// depends on nothing but the class itself: offline and load-time instrumentation, done in any
/// class order, give the same ids.
pub fn site_id(class_internal_name: &str, index: u32) -> i64 {
    assert!(
        index < MAX_SITES_PER_CLASS,
        "site index {index} out of range"
    );
    let class_bits = fnv1a64(class_internal_name.as_bytes()) & !((1u64 << SITE_INDEX_BITS) - 1);
    (class_bits | u64::from(index)) as i64
}

/// The index within its class of the site `id` (the inverse of [`site_id`]'s second argument).
pub fn site_index(id: i64) -> u32 {
    (id as u64 & ((1u64 << SITE_INDEX_BITS) - 1)) as u32
}

/// The hash part of a site id, equal for every site of one class.
pub fn site_class_key(id: i64) -> u64 {
    id as u64 & !((1u64 << SITE_INDEX_BITS) - 1)
}

/// FNV-1a 64 (the `fnv` crate): site ids are persisted (reports, `sites.tsv`), so the hash must
/// never change with the Rust version, as std's may.
fn fnv1a64(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

/// How the rewriter places a hook relative to the original instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Called just before the instruction, which stays; the hook's arguments are copies of
    /// operands already on the stack (plus the site id).
    Before,
    /// Called just after the instruction, which stays.
    After,
    /// The original invoke instruction is replaced by a call to the hook with the same arguments
    /// (receiver first, if any) followed by the site id, and the same return type.
    Replace,
}

/// `MethodHandles$Lookup.find{,Static}VarHandle(Class, String, Class)`.
const FIND_VAR_HANDLE: &str =
    "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/VarHandle;";
/// `RC.threadGetState(Thread, long)`.
const GET_STATE_HOOK: &str = "(Ljava/lang/Thread;J)Ljava/lang/Thread$State;";
/// The hooks that replace it: the lookup first, the site last.
const FIND_VAR_HANDLE_HOOK: &str = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/Class;\
Ljava/lang/String;Ljava/lang/Class;J)Ljava/lang/invoke/VarHandle;";

/// One entry point of `rankcheck.rt.RC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    // --- data accesses (Before) ---
    /// Before getfield (receiver) or getstatic (null).
    FieldRead,
    /// Before putfield (receiver) or putstatic (null).
    FieldWrite,
    /// Before an array load: the array and the index.
    ArrayRead,
    /// Before an array store: the array and the index.
    ArrayWrite,
    /// After an allocation is complete (after `<init>` for objects, after the `*newarray` for
    /// arrays): names the object by its allocation site, for variable bounding.
    Allocated,
    // --- monitors ---
    /// Before monitorenter, and at the entry of a synchronized method.
    MonitorEnter,
    /// After monitorexit, and at every exit of a synchronized method.
    MonitorExit,
    // --- replaced calls: Object ---
    Wait,
    WaitTimed,
    WaitTimedNanos,
    Notify,
    NotifyAll,
    // --- replaced calls: Thread ---
    ThreadStart,
    Join,
    JoinTimed,
    JoinTimedNanos,
    Sleep,
    SleepNanos,
    Yield,
    OnSpinWait,
    Interrupt,
    Interrupted,
    IsInterrupted,
    /// `Thread.isAlive()`, `getState()`, `Thread.activeCount()` and `Thread.enumerate(Thread[])`:
    /// answered from the model. The JVM's answers depend on how far a real thread got past its
    /// last scheduling point (a thread the model saw end may still be alive, one it sees
    /// waiting may still be running towards its wait), and its count and list include
    /// rankcheck's threads and those earlier executions left.
    IsAlive,
    GetState,
    ActiveCount,
    Enumerate,
    // --- replaced calls: LockSupport ---
    Park,
    ParkBlocker,
    ParkNanos,
    ParkNanosBlocker,
    ParkUntil,
    ParkUntilBlocker,
    Unpark,
    // --- replaced calls: process exit ---
    SystemExit,
    RuntimeExit,
    RuntimeHalt,
    /// `Runtime.addShutdownHook`: under the agent the hook is kept for the execution, and run
    /// as the JVM would run it (at `exit`, or once the last non-daemon thread ended), since the
    /// JVM itself runs its hooks only at its own exit, after every execution.
    AddShutdownHook,
    /// `Runtime.removeShutdownHook`: of the execution's kept hooks.
    RemoveShutdownHook,
    // --- replaced calls: nondeterminism pinned for replay ---
    IdentityHashCode,
    CurrentTimeMillis,
    NanoTime,
    /// `jdk.internal.misc.VM.getNanoTimeAdjustment(offset)`: the wall clock of `Instant.now()`
    /// and `Clock.systemUTC()` (in `java.time.Clock`, which the agent rewrites at load time).
    NanoTimeAdjustment,
    MathRandom,
    /// Replaces `invokespecial java/util/Random.<init>()V` by pushing a seed from this hook and
    /// calling `java/util/Random.<init>(J)V` instead (the only hook that is not a plain
    /// replacement: see [`Hook::replaced_call`]).
    RandomSeed,
    /// `ManagementFactory.getPlatformMBeanServer()`: the same call, marking in the site table
    /// that the program uses the JVM-wide MBean server, which the harness then creates before
    /// the first execution and clears of each execution's registrations (see `Loop.java`).
    PlatformMBeanServer,
    /// `Class.getMethods()`, `getDeclaredMethods()`, `getConstructors()` and
    /// `getDeclaredConstructors()`: the same arrays, sorted (name, then the full signature).
    /// The JVM returns them in an order the specification leaves open and HotSpot takes from
    /// where the names happen to lie in memory, which differs between JVM runs: a loop over them
    /// that stops at a match, or a registry filled in that order, gave a replay in a fresh JVM
    /// other steps than the recorded run.
    ClassMethods,
    ClassDeclaredMethods,
    ClassConstructors,
    ClassDeclaredConstructors,
    // --- atomic accesses through handles (see the rewriter's `passes::handles`) ---
    /// Before a signature-polymorphic `invokevirtual java/lang/invoke/VarHandle.<access mode>`
    /// in application code: the call's arguments are spilled to scratch locals and reloaded
    /// around the hook, which gets the handle, the first coordinate if it is a reference (else
    /// null), the second coordinate if it is an `int` (else -1), and whether the mode writes.
    VarHandleAccess,
    /// Before `invokevirtual sun/misc/Unsafe.<m>(Ljava/lang/Object;J…)` (compareAndSwap*,
    /// getAndAdd*, getAndSet*, put*, get*) in application code, arguments spilled as for
    /// [`Hook::VarHandleAccess`]: the object, the offset, and whether the method writes.
    UnsafeAccess,
    /// At the entry of each public access method of the JDK's field-updater implementations
    /// (`Atomic{Integer,Long,Reference}FieldUpdater` impls): the updater (`this`), the target
    /// object (the first parameter) and whether the method writes.
    UpdaterAccess,
    /// Before every return of a field-updater implementation's constructor: the updater, the
    /// target class, the field name and the field type, so that its accesses name the field.
    UpdaterCreated,
    /// Replaces `MethodHandles$Lookup.findVarHandle`: the handle is remembered with its field.
    FindVarHandle,
    /// Replaces `MethodHandles$Lookup.findStaticVarHandle`.
    FindStaticVarHandle,
    /// Replaces `MethodHandles.arrayElementVarHandle`.
    ArrayElementVarHandle,
    /// Replaces `sun/misc/Unsafe.objectFieldOffset(Field)`: the offset is remembered with its
    /// field (the receiver is typed `Object` so that `RC` does not name `sun.misc`).
    UnsafeObjectFieldOffset,
    // --- calls of collections the agent leaves unrewritten (see the rewriter's
    // `passes::collection_calls`) ---
    /// Before an application's `invokeinterface`/`invokevirtual` of a collection method
    /// (`Map.get`, `Queue.poll`, `ConcurrentHashMap.put`, …), arguments spilled as for
    /// [`Hook::VarHandleAccess`]: the receiver and whether the method may change the
    /// collection. `RC` makes it a scheduling point when the receiver is one of the thread-safe
    /// collections whose own code has none (`ConcurrentHashMap`, …): the call is then one
    /// access of the collection, as it is atomic in the JVM.
    CollectionCall,
    // --- announcements ---
    /// First in every static initializer of the program's classes (class file version 49 and
    /// later): the class. A scheduling point: the JVM has just made the thread the class's
    /// initializer (JVMS §5.5), so a thread switched in here that touches the class waits for
    /// it, inside the JVM, where the agent finds it (a class-initialization cycle between two
    /// threads is a deadlock). The agent also knows from it, without walking the stack, that the
    /// thread runs a static initializer until the class is initialized; the rest of the
    /// initializer has no scheduling points.
    ClassInitBegin,
    /// First in `FutureTask.setException` and in `CompletableFuture.completeThrowable(Throwable)`
    /// (where a task's or a stage's own throwable is kept): the throwable. Not a scheduling
    /// point: the agent notes which thread's task failed, with what, at which step, because
    /// the exception stays in the future and no thread may ever throw it.
    TaskFailed,
    /// After every boolean compare-and-set the rewriter announced as a write: the result and
    /// the site of that announcement (no site of its own). Placed before each return of an
    /// atomic's or a field updater's `compareAndSet`/`weakCompareAndSet*`, and after an
    /// application's `VarHandle.compareAndSet`/`weakCompareAndSet*` and
    /// `Unsafe.compareAndSwap*`/`compareAndSet*` call. Not a scheduling point: a failed
    /// compare-and-set wrote nothing, so the agent tells the model that the write announced at
    /// that site was a read, and a spin lock's waiter (`while (!locked.compareAndSet(false,
    /// true)) {}`) spins as one that re-reads a flag does, giving way to the holder.
    CasResult,
}

/// A JVM method, by owner, name and descriptor (internal names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MethodRef {
    pub owner: &'static str,
    pub name: &'static str,
    pub descriptor: &'static str,
}

impl Hook {
    /// Every hook, in a fixed order.
    pub const ALL: &'static [Hook] = &[
        Hook::FieldRead,
        Hook::FieldWrite,
        Hook::ArrayRead,
        Hook::ArrayWrite,
        Hook::Allocated,
        Hook::MonitorEnter,
        Hook::MonitorExit,
        Hook::Wait,
        Hook::WaitTimed,
        Hook::WaitTimedNanos,
        Hook::Notify,
        Hook::NotifyAll,
        Hook::ThreadStart,
        Hook::Join,
        Hook::JoinTimed,
        Hook::JoinTimedNanos,
        Hook::Sleep,
        Hook::SleepNanos,
        Hook::Yield,
        Hook::OnSpinWait,
        Hook::Interrupt,
        Hook::Interrupted,
        Hook::IsInterrupted,
        Hook::IsAlive,
        Hook::GetState,
        Hook::ActiveCount,
        Hook::Enumerate,
        Hook::Park,
        Hook::ParkBlocker,
        Hook::ParkNanos,
        Hook::ParkNanosBlocker,
        Hook::ParkUntil,
        Hook::ParkUntilBlocker,
        Hook::Unpark,
        Hook::SystemExit,
        Hook::RuntimeExit,
        Hook::RuntimeHalt,
        Hook::AddShutdownHook,
        Hook::RemoveShutdownHook,
        Hook::IdentityHashCode,
        Hook::CurrentTimeMillis,
        Hook::NanoTime,
        Hook::NanoTimeAdjustment,
        Hook::MathRandom,
        Hook::RandomSeed,
        Hook::PlatformMBeanServer,
        Hook::ClassMethods,
        Hook::ClassDeclaredMethods,
        Hook::ClassConstructors,
        Hook::ClassDeclaredConstructors,
        Hook::VarHandleAccess,
        Hook::UnsafeAccess,
        Hook::UpdaterAccess,
        Hook::UpdaterCreated,
        Hook::FindVarHandle,
        Hook::FindStaticVarHandle,
        Hook::ArrayElementVarHandle,
        Hook::UnsafeObjectFieldOffset,
        Hook::CollectionCall,
        Hook::ClassInitBegin,
        Hook::TaskFailed,
        Hook::CasResult,
    ];

    /// `(method name in RC, descriptor, placement)`.
    const fn spec(self) -> (&'static str, &'static str, Placement) {
        use Placement::*;
        match self {
            Hook::FieldRead => ("fieldRead", "(Ljava/lang/Object;J)V", Before),
            Hook::FieldWrite => ("fieldWrite", "(Ljava/lang/Object;J)V", Before),
            Hook::ArrayRead => ("arrayRead", "(Ljava/lang/Object;IJ)V", Before),
            Hook::ArrayWrite => ("arrayWrite", "(Ljava/lang/Object;IJ)V", Before),
            Hook::Allocated => ("allocated", "(Ljava/lang/Object;J)V", After),
            Hook::MonitorEnter => ("monitorEnter", "(Ljava/lang/Object;J)V", Before),
            Hook::MonitorExit => ("monitorExit", "(Ljava/lang/Object;J)V", After),
            Hook::Wait => ("objectWait", "(Ljava/lang/Object;J)V", Replace),
            Hook::WaitTimed => ("objectWaitTimed", "(Ljava/lang/Object;JJ)V", Replace),
            Hook::WaitTimedNanos => ("objectWaitTimedNanos", "(Ljava/lang/Object;JIJ)V", Replace),
            Hook::Notify => ("objectNotify", "(Ljava/lang/Object;J)V", Replace),
            Hook::NotifyAll => ("objectNotifyAll", "(Ljava/lang/Object;J)V", Replace),
            Hook::ThreadStart => ("threadStart", "(Ljava/lang/Thread;J)V", Replace),
            Hook::Join => ("threadJoin", "(Ljava/lang/Thread;J)V", Replace),
            Hook::JoinTimed => ("threadJoinTimed", "(Ljava/lang/Thread;JJ)V", Replace),
            Hook::JoinTimedNanos => ("threadJoinTimedNanos", "(Ljava/lang/Thread;JIJ)V", Replace),
            Hook::Sleep => ("threadSleep", "(JJ)V", Replace),
            Hook::SleepNanos => ("threadSleepNanos", "(JIJ)V", Replace),
            Hook::Yield => ("threadYield", "(J)V", Replace),
            Hook::OnSpinWait => ("threadOnSpinWait", "(J)V", Replace),
            Hook::Interrupt => ("threadInterrupt", "(Ljava/lang/Thread;J)V", Replace),
            Hook::Interrupted => ("threadInterrupted", "(J)Z", Replace),
            Hook::IsInterrupted => ("threadIsInterrupted", "(Ljava/lang/Thread;J)Z", Replace),
            Hook::IsAlive => ("threadIsAlive", "(Ljava/lang/Thread;J)Z", Replace),
            Hook::GetState => ("threadGetState", GET_STATE_HOOK, Replace),
            Hook::ActiveCount => ("threadActiveCount", "(J)I", Replace),
            Hook::Enumerate => ("threadEnumerate", "([Ljava/lang/Thread;J)I", Replace),
            Hook::Park => ("park", "(J)V", Replace),
            Hook::ParkBlocker => ("parkBlocker", "(Ljava/lang/Object;J)V", Replace),
            Hook::ParkNanos => ("parkNanos", "(JJ)V", Replace),
            Hook::ParkNanosBlocker => ("parkNanosBlocker", "(Ljava/lang/Object;JJ)V", Replace),
            Hook::ParkUntil => ("parkUntil", "(JJ)V", Replace),
            Hook::ParkUntilBlocker => ("parkUntilBlocker", "(Ljava/lang/Object;JJ)V", Replace),
            Hook::Unpark => ("unpark", "(Ljava/lang/Thread;J)V", Replace),
            Hook::SystemExit => ("systemExit", "(IJ)V", Replace),
            Hook::RuntimeExit => ("runtimeExit", "(Ljava/lang/Runtime;IJ)V", Replace),
            Hook::RuntimeHalt => ("runtimeHalt", "(Ljava/lang/Runtime;IJ)V", Replace),
            Hook::AddShutdownHook => (
                "addShutdownHook",
                "(Ljava/lang/Runtime;Ljava/lang/Thread;J)V",
                Replace,
            ),
            Hook::RemoveShutdownHook => (
                "removeShutdownHook",
                "(Ljava/lang/Runtime;Ljava/lang/Thread;J)Z",
                Replace,
            ),
            Hook::IdentityHashCode => ("identityHashCode", "(Ljava/lang/Object;J)I", Replace),
            Hook::CurrentTimeMillis => ("currentTimeMillis", "(J)J", Replace),
            Hook::NanoTime => ("nanoTime", "(J)J", Replace),
            Hook::NanoTimeAdjustment => ("nanoTimeAdjustment", "(JJ)J", Replace),
            Hook::MathRandom => ("mathRandom", "(J)D", Replace),
            Hook::RandomSeed => ("randomSeed", "(J)J", Replace),
            Hook::PlatformMBeanServer => (
                "platformMBeanServer",
                "(J)Ljavax/management/MBeanServer;",
                Replace,
            ),
            Hook::ClassMethods => (
                "classMethods",
                "(Ljava/lang/Class;J)[Ljava/lang/reflect/Method;",
                Replace,
            ),
            Hook::ClassDeclaredMethods => (
                "classDeclaredMethods",
                "(Ljava/lang/Class;J)[Ljava/lang/reflect/Method;",
                Replace,
            ),
            Hook::ClassConstructors => (
                "classConstructors",
                "(Ljava/lang/Class;J)[Ljava/lang/reflect/Constructor;",
                Replace,
            ),
            Hook::ClassDeclaredConstructors => (
                "classDeclaredConstructors",
                "(Ljava/lang/Class;J)[Ljava/lang/reflect/Constructor;",
                Replace,
            ),
            Hook::VarHandleAccess => (
                "varHandleAccess",
                "(Ljava/lang/Object;Ljava/lang/Object;IZJ)V",
                Before,
            ),
            Hook::UnsafeAccess => ("unsafeAccess", "(Ljava/lang/Object;JZJ)V", Before),
            Hook::UpdaterAccess => (
                "updaterAccess",
                "(Ljava/lang/Object;Ljava/lang/Object;ZJ)V",
                Before,
            ),
            Hook::UpdaterCreated => (
                "updaterCreated",
                "(Ljava/lang/Object;Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;J)V",
                Before,
            ),
            Hook::FindVarHandle => ("findVarHandle", FIND_VAR_HANDLE_HOOK, Replace),
            Hook::FindStaticVarHandle => ("findStaticVarHandle", FIND_VAR_HANDLE_HOOK, Replace),
            Hook::ArrayElementVarHandle => (
                "arrayElementVarHandle",
                "(Ljava/lang/Class;J)Ljava/lang/invoke/VarHandle;",
                Replace,
            ),
            Hook::UnsafeObjectFieldOffset => (
                "unsafeObjectFieldOffset",
                "(Ljava/lang/Object;Ljava/lang/reflect/Field;J)J",
                Replace,
            ),
            Hook::CollectionCall => ("collectionCall", "(Ljava/lang/Object;ZJ)V", Before),
            Hook::ClassInitBegin => ("classInitBegin", "(Ljava/lang/Class;J)V", Before),
            Hook::TaskFailed => ("taskFailed", "(Ljava/lang/Throwable;J)V", Before),
            Hook::CasResult => ("casResult", "(ZJ)V", Before),
        }
    }

    /// The method's name in `rankcheck/rt/RC`.
    pub const fn name(self) -> &'static str {
        self.spec().0
    }

    /// The method's descriptor in `rankcheck/rt/RC`.
    pub const fn descriptor(self) -> &'static str {
        self.spec().1
    }

    /// Where the rewriter puts the call.
    pub const fn placement(self) -> Placement {
        self.spec().2
    }

    /// The hook as a method reference.
    pub const fn method(self) -> MethodRef {
        MethodRef {
            owner: RC_CLASS,
            name: self.name(),
            descriptor: self.descriptor(),
        }
    }

    /// The replacements that pin what differs between JVM runs for the program's own code
    /// (identity hashes, `Math.random`, reflection's order) or mark the site table (the MBean
    /// server): left out of JDK classes, which may share such values with threads rankcheck
    /// does not control (the rewriter's `Config::pin_nondeterminism`).
    pub const fn pins_nondeterminism(self) -> bool {
        matches!(
            self,
            Hook::IdentityHashCode
                | Hook::MathRandom
                | Hook::PlatformMBeanServer
                | Hook::ClassMethods
                | Hook::ClassDeclaredMethods
                | Hook::ClassConstructors
                | Hook::ClassDeclaredConstructors
        )
    }

    /// For the [`Placement::Replace`] hooks a method reference or a `MethodHandle` constant may
    /// name (`threads.forEach(Thread::start)`): the descriptor of the hook's bridge in `RC`, an
    /// overload without the site id (such a call has no bytecode site; the bridge passes 0).
    /// The rewriter points the constant at it (`passes::calls::redirect_method_handles`).
    /// `None` for hooks no method reference reaches: the seed of `new Random()`, the handle
    /// makers (their results are tracked per call site), the JDK-internal clock and the MBean
    /// server (a method reference to it only misses marking the site table).
    pub fn bridge_descriptor(self) -> Option<String> {
        if self.placement() != Placement::Replace
            || matches!(
                self,
                Hook::RandomSeed
                    | Hook::FindVarHandle
                    | Hook::FindStaticVarHandle
                    | Hook::ArrayElementVarHandle
                    | Hook::UnsafeObjectFieldOffset
                    | Hook::NanoTimeAdjustment
                    | Hook::PlatformMBeanServer
            )
        {
            return None;
        }
        let d = self.descriptor();
        let close = d.rfind(')')?;
        d[..close]
            .strip_suffix('J')
            .map(|params| format!("{params}{}", &d[close..]))
    }

    /// For [`Placement::Replace`] hooks: the JDK method whose calls this hook replaces. The owner
    /// is the declaring class; the rewriter also replaces calls that name a subclass as owner
    /// (`invokevirtual MyThread.join()V`) when the method resolves to this one.
    pub const fn replaced_call(self) -> Option<MethodRef> {
        const fn m(
            owner: &'static str,
            name: &'static str,
            descriptor: &'static str,
        ) -> Option<MethodRef> {
            Some(MethodRef {
                owner,
                name,
                descriptor,
            })
        }
        const OBJ: &str = "java/lang/Object";
        const THREAD: &str = "java/lang/Thread";
        const LS: &str = "java/util/concurrent/locks/LockSupport";
        const LOOKUP: &str = "java/lang/invoke/MethodHandles$Lookup";
        const CLASS: &str = "java/lang/Class";
        match self {
            Hook::Wait => m(OBJ, "wait", "()V"),
            Hook::WaitTimed => m(OBJ, "wait", "(J)V"),
            Hook::WaitTimedNanos => m(OBJ, "wait", "(JI)V"),
            Hook::Notify => m(OBJ, "notify", "()V"),
            Hook::NotifyAll => m(OBJ, "notifyAll", "()V"),
            Hook::ThreadStart => m(THREAD, "start", "()V"),
            Hook::Join => m(THREAD, "join", "()V"),
            Hook::JoinTimed => m(THREAD, "join", "(J)V"),
            Hook::JoinTimedNanos => m(THREAD, "join", "(JI)V"),
            Hook::Sleep => m(THREAD, "sleep", "(J)V"),
            Hook::SleepNanos => m(THREAD, "sleep", "(JI)V"),
            Hook::Yield => m(THREAD, "yield", "()V"),
            Hook::OnSpinWait => m(THREAD, "onSpinWait", "()V"),
            Hook::Interrupt => m(THREAD, "interrupt", "()V"),
            Hook::Interrupted => m(THREAD, "interrupted", "()Z"),
            Hook::IsInterrupted => m(THREAD, "isInterrupted", "()Z"),
            Hook::IsAlive => m(THREAD, "isAlive", "()Z"),
            Hook::GetState => m(THREAD, "getState", "()Ljava/lang/Thread$State;"),
            Hook::ActiveCount => m(THREAD, "activeCount", "()I"),
            Hook::Enumerate => m(THREAD, "enumerate", "([Ljava/lang/Thread;)I"),
            Hook::Park => m(LS, "park", "()V"),
            Hook::ParkBlocker => m(LS, "park", "(Ljava/lang/Object;)V"),
            Hook::ParkNanos => m(LS, "parkNanos", "(J)V"),
            Hook::ParkNanosBlocker => m(LS, "parkNanos", "(Ljava/lang/Object;J)V"),
            Hook::ParkUntil => m(LS, "parkUntil", "(J)V"),
            Hook::ParkUntilBlocker => m(LS, "parkUntil", "(Ljava/lang/Object;J)V"),
            Hook::Unpark => m(LS, "unpark", "(Ljava/lang/Thread;)V"),
            Hook::SystemExit => m("java/lang/System", "exit", "(I)V"),
            Hook::RuntimeExit => m("java/lang/Runtime", "exit", "(I)V"),
            Hook::RuntimeHalt => m("java/lang/Runtime", "halt", "(I)V"),
            Hook::AddShutdownHook => m(
                "java/lang/Runtime",
                "addShutdownHook",
                "(Ljava/lang/Thread;)V",
            ),
            Hook::RemoveShutdownHook => m(
                "java/lang/Runtime",
                "removeShutdownHook",
                "(Ljava/lang/Thread;)Z",
            ),
            Hook::IdentityHashCode => m(
                "java/lang/System",
                "identityHashCode",
                "(Ljava/lang/Object;)I",
            ),
            Hook::CurrentTimeMillis => m("java/lang/System", "currentTimeMillis", "()J"),
            Hook::NanoTime => m("java/lang/System", "nanoTime", "()J"),
            Hook::NanoTimeAdjustment => m("jdk/internal/misc/VM", "getNanoTimeAdjustment", "(J)J"),
            Hook::MathRandom => m("java/lang/Math", "random", "()D"),
            Hook::RandomSeed => m("java/util/Random", "<init>", "()V"),
            Hook::PlatformMBeanServer => m(
                "java/lang/management/ManagementFactory",
                "getPlatformMBeanServer",
                "()Ljavax/management/MBeanServer;",
            ),
            Hook::ClassMethods => m(CLASS, "getMethods", "()[Ljava/lang/reflect/Method;"),
            Hook::ClassDeclaredMethods => {
                m(CLASS, "getDeclaredMethods", "()[Ljava/lang/reflect/Method;")
            }
            Hook::ClassConstructors => m(
                CLASS,
                "getConstructors",
                "()[Ljava/lang/reflect/Constructor;",
            ),
            Hook::ClassDeclaredConstructors => m(
                CLASS,
                "getDeclaredConstructors",
                "()[Ljava/lang/reflect/Constructor;",
            ),
            Hook::FindVarHandle => m(LOOKUP, "findVarHandle", FIND_VAR_HANDLE),
            Hook::FindStaticVarHandle => m(LOOKUP, "findStaticVarHandle", FIND_VAR_HANDLE),
            Hook::ArrayElementVarHandle => m(
                "java/lang/invoke/MethodHandles",
                "arrayElementVarHandle",
                "(Ljava/lang/Class;)Ljava/lang/invoke/VarHandle;",
            ),
            Hook::UnsafeObjectFieldOffset => m(
                "sun/misc/Unsafe",
                "objectFieldOffset",
                "(Ljava/lang/reflect/Field;)J",
            ),
            _ => None,
        }
    }

    /// The hook whose [`Hook::replaced_call`] is `owner.name descriptor`, if any (declaring
    /// owner only; subclass owners are the rewriter's to resolve).
    pub fn replacing(owner: &str, name: &str, descriptor: &str) -> Option<Hook> {
        Hook::ALL.iter().copied().find(|h| {
            h.replaced_call()
                .is_some_and(|m| m.owner == owner && m.name == name && m.descriptor == descriptor)
        })
    }
}

/// What kind of place a site is, as written in the site table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SiteKind {
    FieldRead,
    FieldWrite,
    StaticRead,
    StaticWrite,
    ArrayRead,
    ArrayWrite,
    Alloc,
    MonitorEnter,
    MonitorExit,
    /// Entry of a synchronized method (its implicit monitorenter).
    SyncMethodEnter,
    /// An exit of a synchronized method (its implicit monitorexit), normal or exceptional.
    SyncMethodExit,
    /// Entry of a static initializer ([`Hook::ClassInitBegin`]).
    ClassInitBegin,
    /// Where a thread waited inside the JVM for a class another thread was initializing: learnt
    /// by the agent from the thread's frame, never written by the rewriter.
    ClassInitWait,
    /// A replaced call; the hook says which.
    Call(Hook),
}

impl SiteKind {
    /// The word used for this kind in the site table.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::FieldRead => "field-read",
            SiteKind::FieldWrite => "field-write",
            SiteKind::StaticRead => "static-read",
            SiteKind::StaticWrite => "static-write",
            SiteKind::ArrayRead => "array-read",
            SiteKind::ArrayWrite => "array-write",
            SiteKind::Alloc => "alloc",
            SiteKind::MonitorEnter => "monitor-enter",
            SiteKind::MonitorExit => "monitor-exit",
            SiteKind::SyncMethodEnter => "sync-method-enter",
            SiteKind::SyncMethodExit => "sync-method-exit",
            SiteKind::ClassInitBegin => "class-init-begin",
            SiteKind::ClassInitWait => "class-init-wait",
            SiteKind::Call(h) => h.name(),
        }
    }

    /// Inverse of [`SiteKind::as_str`].
    pub fn parse(word: &str) -> Option<SiteKind> {
        const FIXED: &[SiteKind] = &[
            SiteKind::FieldRead,
            SiteKind::FieldWrite,
            SiteKind::StaticRead,
            SiteKind::StaticWrite,
            SiteKind::ArrayRead,
            SiteKind::ArrayWrite,
            SiteKind::Alloc,
            SiteKind::MonitorEnter,
            SiteKind::MonitorExit,
            SiteKind::SyncMethodEnter,
            SiteKind::SyncMethodExit,
            SiteKind::ClassInitBegin,
            SiteKind::ClassInitWait,
        ];
        FIXED
            .iter()
            .copied()
            .find(|k| k.as_str() == word)
            .or_else(|| {
                Hook::ALL
                    .iter()
                    .copied()
                    .find(|h| h.name() == word)
                    .map(SiteKind::Call)
            })
    }

    /// True for data accesses that write.
    pub fn is_write(self) -> bool {
        matches!(
            self,
            SiteKind::FieldWrite | SiteKind::StaticWrite | SiteKind::ArrayWrite
        )
    }

    /// True for data accesses (field, static, array; read or write).
    pub fn is_data(self) -> bool {
        matches!(
            self,
            SiteKind::FieldRead
                | SiteKind::FieldWrite
                | SiteKind::StaticRead
                | SiteKind::StaticWrite
                | SiteKind::ArrayRead
                | SiteKind::ArrayWrite
        )
    }
}

/// One row of the site table: a tab-separated line
/// `id(hex) class method descriptor bci line kind detail`, where `bci` is the offset of the
/// instruction in the *original* (uninstrumented) method, `line` is its source line or `-`, and
/// `detail` is `owner.name:descriptor` for fields, the element descriptor for arrays, the class
/// for allocations, and `-` otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteRecord {
    pub id: i64,
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub bci: u32,
    pub line: Option<u32>,
    pub kind: SiteKind,
    pub detail: String,
}

impl SiteRecord {
    /// The record as one line of the site table (no newline).
    pub fn to_line(&self) -> String {
        let line = self.line.map_or_else(|| "-".to_string(), |l| l.to_string());
        format!(
            "{:016x}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.id as u64,
            self.class,
            self.method,
            self.descriptor,
            self.bci,
            line,
            self.kind.as_str(),
            if self.detail.is_empty() {
                "-"
            } else {
                &self.detail
            }
        )
    }

    /// Parses one line written by [`SiteRecord::to_line`].
    pub fn parse_line(text: &str) -> Result<SiteRecord, String> {
        let fields: Vec<&str> = text.split('\t').collect();
        if fields.len() != 8 {
            return Err(format!(
                "site table line has {} fields, not 8",
                fields.len()
            ));
        }
        let id = u64::from_str_radix(fields[0], 16)
            .map_err(|e| format!("bad site id {:?}: {e}", fields[0]))? as i64;
        let bci = fields[4]
            .parse()
            .map_err(|e| format!("bad bci {:?}: {e}", fields[4]))?;
        let line = match fields[5] {
            "-" => None,
            l => Some(l.parse().map_err(|e| format!("bad line {l:?}: {e}"))?),
        };
        let kind =
            SiteKind::parse(fields[6]).ok_or_else(|| format!("bad site kind {:?}", fields[6]))?;
        Ok(SiteRecord {
            id,
            class: fields[1].to_string(),
            method: fields[2].to_string(),
            descriptor: fields[3].to_string(),
            bci,
            line,
            kind,
            detail: if fields[7] == "-" {
                String::new()
            } else {
                fields[7].to_string()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_ids_are_per_class_and_invertible() {
        let a = site_id("com/example/Account", 7);
        assert_eq!(site_index(a), 7);
        assert_eq!(
            site_class_key(a),
            site_class_key(site_id("com/example/Account", 9))
        );
        assert_ne!(
            site_class_key(a),
            site_class_key(site_id("com/example/Bank", 7))
        );
        assert_eq!(a, site_id("com/example/Account", 7));
    }

    #[test]
    fn site_ids_keep_their_values() {
        // Site ids are persisted (reports, sites.tsv, the agent's tables): FNV-1a 64 of the
        // class name, as computed by the hand-written loop before the `fnv` crate.
        assert_eq!(
            site_id("rankcheck/Account", 5) as u64,
            0xd848_8a02_e600_0005
        );
    }

    #[test]
    fn hook_names_are_unique_and_replacements_resolve() {
        let mut names: Vec<_> = Hook::ALL.iter().map(|h| h.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Hook::ALL.len());
        assert_eq!(
            Hook::replacing("java/lang/Object", "wait", "(J)V"),
            Some(Hook::WaitTimed)
        );
        assert_eq!(Hook::replacing("java/lang/Object", "hashCode", "()I"), None);
        assert_eq!(
            Hook::replacing(
                "java/lang/Class",
                "getDeclaredMethods",
                "()[Ljava/lang/reflect/Method;"
            ),
            Some(Hook::ClassDeclaredMethods)
        );
        for h in Hook::ALL {
            assert_eq!(
                h.placement() == Placement::Replace,
                h.replaced_call().is_some(),
                "{h:?}"
            );
        }
    }

    #[test]
    fn site_kinds_round_trip() {
        for k in [SiteKind::ArrayWrite, SiteKind::Call(Hook::ParkNanos)] {
            assert_eq!(SiteKind::parse(k.as_str()), Some(k));
        }
        let rec = SiteRecord {
            id: site_id("a/B", 3),
            class: "a/B".into(),
            method: "run".into(),
            descriptor: "()V".into(),
            bci: 12,
            line: Some(40),
            kind: SiteKind::FieldWrite,
            detail: "a/B.count:I".into(),
        };
        assert_eq!(SiteRecord::parse_line(&rec.to_line()), Ok(rec));
    }
}
