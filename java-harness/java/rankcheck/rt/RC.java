package rankcheck.rt;

import java.util.concurrent.locks.LockSupport;

/**
 * The hooks that instrumented code calls. The names and descriptors are fixed by
 * {@code java-harness/src/hooks.rs}; a test checks this class against that table.
 *
 * <p>While {@link #on} is false (no agent loaded) every hook behaves exactly like the operation
 * it stands for, so an instrumented program runs unchanged under plain {@code java}. The agent
 * binds the natives and sets {@code on}; from then on the hooks are scheduling points.
 */
public final class RC {
    private RC() {}

    /**
     * Set by the agent once its natives are bound, before any application thread starts (which
     * orders the write before every read that matters). Deliberately not volatile: a volatile
     * read in every access hook is a barrier the JIT cannot move loads across, so a hot loop
     * over an instrumented array re-read everything each iteration (MolDyn, all sites: 4.3 s
     * with it, see the README for without).
     */
    static boolean on;

    /**
     * A quiet stretch: the scheduler promised {@link #quietThread} that its next {@link
     * #quietLeft} data accesses get no thread switch, so they skip the agent (a hot loop over a
     * tracked field then runs at nearly native speed). Only the agent writes {@code quietThread},
     * and only on that thread; the agent reads back what is left at the thread's next scheduling
     * point, to count the skipped accesses as steps. Plain fields: one application thread runs
     * at a time and the hand-over between threads goes through the agent's lock.
     */
    static Thread quietThread;

    static long quietLeft;

    /**
     * What else the open stretch lets pass in Java besides data accesses, as bits (written by the
     * agent when a stretch opens and the value changes): {@link #COVERS_INTERRUPT_QUERIES}, the
     * quiet thread's interrupt flag is clear in the model, so its own interrupt queries answer
     * false (nothing else can set the flag while it alone runs); {@link #COVERS_MONITORS}, no
     * other thread owns a monitor in the model, so no monitor enter can block.
     */
    static int quietCovers;

    static final int COVERS_INTERRUPT_QUERIES = 1;
    static final int COVERS_MONITORS = 2;

    /**
     * Monitors the quiet thread entered inside its stretch and still holds, innermost last. An
     * exit of the innermost one passes in Java too (the pair never reaches the model: no other
     * thread runs between them); when the stretch closes the agent performs the enters still
     * here in the model and empties the stack.
     */
    static final Object[] quietHeld = new Object[16];

    static int quietHeldDepth;

    /** Whether this access may pass without the agent (and counts it if so). */
    private static boolean quiet() {
        if (quietLeft > 0 && quietThread == Thread.currentThread()) {
            quietLeft--;
            return true;
        }
        return false;
    }

    // ---- data accesses --------------------------------------------------------------------

    public static void fieldRead(Object obj, long site) {
        if (on) {
            if (!quiet()) nAccess(obj, -1, site, false);
        } else if (Trace.ON) Trace.access(obj, site);
    }

    public static void fieldWrite(Object obj, long site) {
        if (on) {
            if (!quiet()) nAccess(obj, -1, site, true);
        } else if (Trace.ON) Trace.access(obj, site);
    }

    public static void arrayRead(Object array, int index, long site) {
        if (on) {
            if (!quiet()) nAccess(array, index, site, false);
        } else if (Trace.ON) Trace.access(array, site);
    }

    public static void arrayWrite(Object array, int index, long site) {
        if (on) {
            if (!quiet()) nAccess(array, index, site, true);
        } else if (Trace.ON) Trace.access(array, site);
    }

    public static void classInitBegin(Class<?> c, long site) {
        if (on) nClassInitBegin(c, site);
    }

    /**
     * A task's (or a completion stage's) own throwable, about to be kept in its future: the agent
     * notes it, since no thread may ever throw it. The text is built here, once per failed task:
     * the throwable as {@code toString} gives it and its innermost frames.
     */
    public static void taskFailed(Throwable t, long site) {
        if (on && t != null) nTaskFailed(failure(t), site);
    }

    /**
     * A compare-and-set announced as a write at {@code site} returned {@code ok}: a failed one
     * wrote nothing, which the agent tells the model.
     */
    public static void casResult(boolean ok, long site) {
        if (on && !ok) nCasFailed(site);
    }

    /** {@code java.lang.NullPointerException: …} and the throwable's first frames, a line each. */
    private static String failure(Throwable t) {
        StringBuilder b = new StringBuilder(String.valueOf(t));
        StackTraceElement[] frames = t.getStackTrace();
        for (int i = 0; i < frames.length && i < 24; i++) {
            StackTraceElement f = frames[i];
            b.append("\n\tat ").append(f.getClassName()).append('.').append(f.getMethodName())
                .append('(').append(f.getFileName() == null ? "Unknown Source" : f.getFileName());
            if (f.getLineNumber() >= 0) b.append(':').append(f.getLineNumber());
            b.append(')');
        }
        return b.toString();
    }

    public static void allocated(Object obj, long site) {
        if (on) nAllocated(obj, site);
        else if (Trace.ON) Trace.allocated(obj, site);
    }

    // ---- monitors -------------------------------------------------------------------------

    public static void monitorEnter(Object obj, long site) {
        if (on) {
            int depth = quietHeldDepth;
            if ((quietCovers & COVERS_MONITORS) != 0 && depth < quietHeld.length && obj != null && quiet()) {
                quietHeld[depth] = obj;
                quietHeldDepth = depth + 1;
            } else {
                nMonitorEnter(obj, site);
            }
        }
    }

    public static void monitorExit(Object obj, long site) {
        if (on) {
            int depth = quietHeldDepth;
            if (depth > 0 && quietHeld[depth - 1] == obj && quiet()) {
                quietHeld[depth - 1] = null;
                quietHeldDepth = depth - 1;
            } else {
                nMonitorExit(obj, site);
            }
        }
    }

    // ---- Object ---------------------------------------------------------------------------

    public static void objectWait(Object obj, long site) throws InterruptedException {
        if (!on || !waitControlled(obj, -1L, site)) obj.wait();
    }

    public static void objectWaitTimed(Object obj, long millis, long site) throws InterruptedException {
        if (!on || !waitControlled(obj, checkMillis(millis), site)) obj.wait(millis);
    }

    public static void objectWaitTimedNanos(Object obj, long millis, int nanos, long site)
            throws InterruptedException {
        if (!on || !waitControlled(obj, checkMillis(millis) + (nanos > 0 ? 1 : 0), site)) {
            obj.wait(millis, nanos);
        }
    }

    public static void objectNotify(Object obj, long site) {
        if (!on || !nNotify(obj, false, site)) obj.notify();
    }

    public static void objectNotifyAll(Object obj, long site) {
        if (!on || !nNotify(obj, true, site)) obj.notifyAll();
    }

    // ---- Thread ---------------------------------------------------------------------------

    public static void threadStart(Thread t, long site) {
        if (!on || !nThreadStart(t, site)) {
            t.start();
            return;
        }
        try {
            t.start();
        } finally {
            nThreadStarted(t);
        }
    }

    public static void threadJoin(Thread t, long site) throws InterruptedException {
        if (!on || !joinControlled(t, -1L, site)) t.join();
    }

    public static void threadJoinTimed(Thread t, long millis, long site) throws InterruptedException {
        if (!on || !joinControlled(t, checkMillis(millis), site)) t.join(millis);
    }

    public static void threadJoinTimedNanos(Thread t, long millis, int nanos, long site)
            throws InterruptedException {
        if (!on || !joinControlled(t, checkMillis(millis) + (nanos > 0 ? 1 : 0), site)) {
            t.join(millis, nanos);
        }
    }

    public static void threadSleep(long millis, long site) throws InterruptedException {
        if (!on || !nSleep(checkMillis(millis), site)) Thread.sleep(millis);
    }

    public static void threadSleepNanos(long millis, int nanos, long site) throws InterruptedException {
        if (!on || !nSleep(checkMillis(millis), site)) Thread.sleep(millis, nanos);
    }

    public static void threadYield(long site) {
        if (!on || !nYield(site)) Thread.yield();
    }

    public static void threadOnSpinWait(long site) {
        if (!on || !nYield(site)) Thread.onSpinWait();
    }

    public static void threadInterrupt(Thread t, long site) {
        if (!on || !nInterrupt(t, site)) t.interrupt();
    }

    public static boolean threadInterrupted(long site) {
        if (on && (quietCovers & COVERS_INTERRUPT_QUERIES) != 0 && quiet()) return false;
        int answer = on ? nInterrupted(null, true, site) : -1;
        return answer < 0 ? Thread.interrupted() : answer != 0;
    }

    public static boolean threadIsInterrupted(Thread t, long site) {
        if (on && (quietCovers & COVERS_INTERRUPT_QUERIES) != 0 && t == Thread.currentThread() && quiet()) {
            return false;
        }
        int answer = on ? nInterrupted(t, false, site) : -1;
        return answer < 0 ? t.isInterrupted() : answer != 0;
    }

    // ---- thread state, from the model: the JVM's answer depends on how far a real thread got
    // past its last scheduling point, and its count includes rankcheck's own threads --------

    private static final Thread.State[] THREAD_STATES = Thread.State.values();

    public static boolean threadIsAlive(Thread t, long site) {
        int state = on ? nThreadState(t, site) : -1;
        return state < 0 ? t.isAlive() : THREAD_STATES[state] != Thread.State.TERMINATED;
    }

    public static Thread.State threadGetState(Thread t, long site) {
        int state = on ? nThreadState(t, site) : -1;
        return state < 0 ? t.getState() : THREAD_STATES[state];
    }

    public static int threadActiveCount(long site) {
        int live = on ? nLiveThreads(site) : -1;
        return live < 0 ? Thread.activeCount() : live;
    }

    /**
     * {@code Thread.enumerate(out)} with the execution's threads the model has not seen end, in
     * the JVM's order (the order they were started): the JVM's list also holds rankcheck's
     * threads and those earlier executions left, and threads that ended in the model but not
     * yet in the JVM. One scheduling point per thread of the execution asked about. A caller
     * the model does not control gets no answer for any thread (not even itself, which the
     * JVM always lists) and sees the JVM's list.
     */
    public static int threadEnumerate(Thread[] out, long site) {
        if (!on) return Thread.enumerate(out);
        Thread[] all = new Thread[Thread.activeCount() + 8];
        int n;
        while ((n = Thread.enumerate(all)) == all.length) all = new Thread[all.length * 2];
        int kept = 0;
        boolean answered = false;
        for (int i = 0; i < n && kept < out.length; i++) {
            int state = nThreadState(all[i], site);
            answered |= state >= 0;
            if (state >= 0 && THREAD_STATES[state] != Thread.State.TERMINATED) out[kept++] = all[i];
        }
        return answered ? kept : Thread.enumerate(out);
    }

    // ---- LockSupport ----------------------------------------------------------------------

    public static void park(long site) {
        if (!on || !nPark(null, -1L, false, site)) LockSupport.park();
    }

    public static void parkBlocker(Object blocker, long site) {
        if (!on || !nPark(blocker, -1L, false, site)) LockSupport.park(blocker);
    }

    public static void parkNanos(long nanos, long site) {
        if (!on || !nPark(null, Math.max(nanos, 0L), false, site)) LockSupport.parkNanos(nanos);
    }

    public static void parkNanosBlocker(Object blocker, long nanos, long site) {
        if (!on || !nPark(blocker, Math.max(nanos, 0L), false, site)) LockSupport.parkNanos(blocker, nanos);
    }

    public static void parkUntil(long deadline, long site) {
        if (!on || !nPark(null, deadline, true, site)) LockSupport.parkUntil(deadline);
    }

    public static void parkUntilBlocker(Object blocker, long deadline, long site) {
        if (!on || !nPark(blocker, deadline, true, site)) LockSupport.parkUntil(blocker, deadline);
    }

    public static void unpark(Thread t, long site) {
        if (!on || !nUnpark(t, site)) LockSupport.unpark(t);
    }

    // ---- process exit ---------------------------------------------------------------------

    public static void systemExit(int status, long site) {
        if (on) runShutdownHooks(site);
        if (!on || !nExit(status, site)) System.exit(status);
    }

    public static void runtimeExit(Runtime runtime, int status, long site) {
        if (on) runShutdownHooks(site);
        if (!on || !nExit(status, site)) runtime.exit(status);
    }

    public static void runtimeHalt(Runtime runtime, int status, long site) {
        if (!on || !nExit(status, site)) runtime.halt(status);
    }

    // ---- shutdown hooks -------------------------------------------------------------------

    /**
     * The shutdown hooks the running execution registered, in order. The JVM runs its hooks only
     * at its own exit, after every execution; under the agent a registration is kept here for the
     * execution instead, and the hooks run as the JVM would run them: when the program calls
     * {@code exit} (the caller waits for them) or once its last non-daemon thread has ended (the
     * root waits for the others, then for the hooks: {@link #afterMain}). Plain fields: one
     * application thread runs at a time; the harness empties them before each execution.
     */
    private static Thread[] shutdownHooks = new Thread[0];

    private static int shutdownHookCount;

    private static boolean shuttingDown;

    /** Forgets the previous execution's hooks (the harness, before each execution). */
    public static void forgetShutdownHooks() {
        shutdownHooks = new Thread[0];
        shutdownHookCount = 0;
        shuttingDown = false;
    }

    public static void addShutdownHook(Runtime runtime, Thread hook, long site) {
        if (!on) {
            runtime.addShutdownHook(hook);
            return;
        }
        if (shuttingDown) throw new IllegalStateException("the program is shutting down");
        if (hook.isAlive()) throw new IllegalArgumentException("hook thread already started");
        if (shutdownHookIndex(hook) >= 0) throw new IllegalArgumentException("hook already registered");
        if (shutdownHookCount == shutdownHooks.length) {
            shutdownHooks = java.util.Arrays.copyOf(shutdownHooks, Math.max(4, 2 * shutdownHookCount));
        }
        shutdownHooks[shutdownHookCount++] = hook;
    }

    public static boolean removeShutdownHook(Runtime runtime, Thread hook, long site) {
        if (!on) return runtime.removeShutdownHook(hook);
        if (shuttingDown) throw new IllegalStateException("the program is shutting down");
        if (hook == null) throw new NullPointerException();
        int i = shutdownHookIndex(hook);
        if (i < 0) return false;
        System.arraycopy(shutdownHooks, i + 1, shutdownHooks, i, shutdownHookCount - i - 1);
        shutdownHooks[--shutdownHookCount] = null;
        return true;
    }

    private static int shutdownHookIndex(Thread hook) {
        for (int i = 0; i < shutdownHookCount; i++) {
            if (shutdownHooks[i] == hook) return i;
        }
        return -1;
    }

    /**
     * The root's end, after the program's main (or test) returned: when the program registered
     * shutdown hooks, waits for its other non-daemon threads, as the JVM does, then runs the
     * hooks. Nothing happens (no scheduling point) when it registered none.
     */
    public static void afterMain() {
        if (!on || shutdownHookCount == 0) return;
        Thread me = Thread.currentThread();
        Thread[] live = new Thread[16];
        while (true) {
            int n;
            while ((n = threadEnumerate(live, 0L)) == live.length) live = new Thread[2 * live.length];
            Thread other = null;
            for (int i = 0; i < n && other == null; i++) {
                if (live[i] != me && !live[i].isDaemon()) other = live[i];
            }
            if (other == null) break;
            joinToTheEnd(other);
        }
        runShutdownHooks(0L);
    }

    /** Starts every registered hook at once and waits for them (once per execution). */
    private static void runShutdownHooks(long site) {
        if (shuttingDown || shutdownHookCount == 0) return;
        shuttingDown = true;
        Thread[] hooks = java.util.Arrays.copyOf(shutdownHooks, shutdownHookCount);
        for (Thread hook : hooks) threadStart(hook, site);
        for (Thread hook : hooks) joinToTheEnd(hook);
    }

    /** Joins {@code t}, an interrupt put off until it ended (as the JVM's exit waits). */
    private static void joinToTheEnd(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                threadJoin(t, 0L);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) threadInterrupt(Thread.currentThread(), 0L);
    }

    // ---- nondeterminism pinned for replay -------------------------------------------------

    /** Also the body of the `hashCode` override the rewriter gives the program's classes. */
    public static int identityHashCode(Object obj, long site) {
        // Negative: not an object of a running execution (agent/src/control/pinned.rs): the JVM's own.
        int h = on ? nIdentityHash(obj, site) : -1;
        return h >= 0 ? h : System.identityHashCode(obj);
    }

    /**
     * The program's {@code ManagementFactory.getPlatformMBeanServer()}: the same call. The
     * site marks that the program uses the JVM-wide server; the harness creates it before the
     * first execution (creating it under control would give that execution steps no later one
     * has) and removes what each execution registered.
     */
    public static javax.management.MBeanServer platformMBeanServer(long site) {
        return java.lang.management.ManagementFactory.getPlatformMBeanServer();
    }

    /** {@code Class.getMethods()} in one order in every JVM ({@link Reflection}). */
    public static java.lang.reflect.Method[] classMethods(Class<?> c, long site) {
        return Reflection.methods(c);
    }

    public static java.lang.reflect.Method[] classDeclaredMethods(Class<?> c, long site) {
        return Reflection.declaredMethods(c);
    }

    public static java.lang.reflect.Constructor<?>[] classConstructors(Class<?> c, long site) {
        return Reflection.sorted(c.getConstructors());
    }

    public static java.lang.reflect.Constructor<?>[] classDeclaredConstructors(Class<?> c, long site) {
        return Reflection.sorted(c.getDeclaredConstructors());
    }

    public static long currentTimeMillis(long site) {
        long t = on ? nClock(false, site) : Long.MIN_VALUE;
        return t != Long.MIN_VALUE ? t : System.currentTimeMillis();
    }

    public static long nanoTime(long site) {
        long t = on ? nClock(true, site) : Long.MIN_VALUE;
        return t != Long.MIN_VALUE ? t : System.nanoTime();
    }

    /**
     * {@code VM.getNanoTimeAdjustment(offset)} on the virtual clock: nanoseconds since
     * {@code offset} seconds past the epoch, -1 when that is more than 2^32 s away (the JDK's
     * contract). Threads rankcheck does not control get the real clock at millisecond precision
     * (RC may not call {@code jdk.internal.misc.VM}).
     */
    public static long nanoTimeAdjustment(long offset, long site) {
        long millis = currentTimeMillis(site);
        long seconds = Math.floorDiv(millis, 1000L) - offset;
        if (seconds > 0xFFFFFFFFL || seconds < -0xFFFFFFFFL) {
            return -1;
        }
        return seconds * 1_000_000_000L + Math.floorMod(millis, 1000L) * 1_000_000L;
    }

    public static double mathRandom(long site) {
        return on ? nRandomDouble(site) : Math.random();
    }

    /** Seed for a {@code new Random()} whose no-argument constructor call was replaced. */
    public static long randomSeed(long site) {
        return on ? nRandomSeed(site) : UNPINNED_SEEDS.nextLong();
    }

    private static final java.util.Random UNPINNED_SEEDS = new java.util.Random();

    private static long checkMillis(long millis) {
        if (millis < 0) throw new IllegalArgumentException("timeout value is negative");
        return millis;
    }

    // ---- atomic accesses through handles ---------------------------------------------------
    // VarHandles, field updaters and Unsafe offsets are remembered with the field they stand for
    // (its key: the agent's hash of "owner.name:descriptor", as in the site table), so that a
    // compareAndSet through one of them and a getfield of the same field are one location.
    // A handle or offset nobody remembered (made before the agent was on, or by code that was
    // not rewritten) is its own location: coarse, but every access through it conflicts.

    private static final int INSTANCE_FIELD = 0;
    private static final int STATIC_FIELD = 1;
    private static final int ARRAY_ELEMENT = 2;

    /** The field a handle or updater stands for. */
    private static final class FieldRef {
        final int kind;
        final long key;

        FieldRef(int kind, long key) {
            this.kind = kind;
            this.key = key;
        }
    }

    /** The field key of the location "the handle itself" (any constant the agent never makes). */
    private static final long HANDLE_KEY = 0x68616e646c65L;

    /**
     * Handle or updater → its field. Weak: every execution's fresh class loader makes new
     * handles. Guarded by itself (a real monitor: no scheduling point is ever inside).
     */
    private static final java.util.Map<Object, FieldRef> HANDLE_FIELDS = new java.util.WeakHashMap<>();

    /** Declaring class → (Unsafe offset → field key). Guarded by itself. */
    private static final java.util.Map<Class<?>, java.util.Map<Long, Long>> OFFSET_FIELDS =
            new java.util.WeakHashMap<>();

    public static void varHandleAccess(Object handle, Object coord0, int coord1, boolean write, long site) {
        if (!on || quiet()) return;
        FieldRef f;
        synchronized (HANDLE_FIELDS) {
            f = HANDLE_FIELDS.get(handle);
        }
        if (f == null || (f.kind != STATIC_FIELD && coord0 == null)) {
            nAccessField(handle, HANDLE_KEY, write, site);
        } else if (f.kind == STATIC_FIELD) {
            nAccessField(null, f.key, write, site);
        } else if (f.kind == INSTANCE_FIELD) {
            nAccessField(coord0, f.key, write, site);
        } else {
            nAccess(coord0, Math.max(coord1, 0), site, write);
        }
    }

    public static void unsafeAccess(Object obj, long offset, boolean write, long site) {
        if (!on || quiet()) return;
        Long key = null;
        synchronized (OFFSET_FIELDS) {
            for (Class<?> c = obj == null ? null : obj.getClass(); c != null && key == null; c = c.getSuperclass()) {
                java.util.Map<Long, Long> offsets = OFFSET_FIELDS.get(c);
                if (offsets != null) key = offsets.get(offset);
            }
        }
        // Unknown offsets: the location (object, offset), the same for every Unsafe access.
        nAccessField(obj, key != null ? key : offset * 0x9E3779B97F4A7C15L + HANDLE_KEY, write, site);
    }

    public static void updaterAccess(Object updater, Object target, boolean write, long site) {
        if (!on || quiet()) return;
        FieldRef f;
        synchronized (HANDLE_FIELDS) {
            f = HANDLE_FIELDS.get(updater);
        }
        if (f == null || target == null) nAccessField(updater, HANDLE_KEY, write, site);
        else nAccessField(target, f.key, write, site);
    }

    // ---- calls of the thread-safe collections the agent leaves unrewritten --------------------

    /** The key of a collection's one location: every call on it reads or writes the whole. */
    private static final long COLLECTION_KEY = 0x636f6c6c656374L;

    /** Per class: whether it is such a collection (asked of the agent once per class). */
    private static final ClassValue<Boolean> UNCONTROLLED_COLLECTION = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
            return nUncontrolledCollection(c);
        }
    };

    /**
     * Before an application's call of a collection method: a scheduling point, one access of
     * the whole collection, when the receiver is a thread-safe collection whose own code has
     * no scheduling point ({@code ConcurrentHashMap}, …). Its operations are atomic, so a
     * check and an act in two calls can then be interleaved, and nothing finer is needed.
     */
    public static void collectionCall(Object receiver, boolean write, long site) {
        if (!on || receiver == null || !UNCONTROLLED_COLLECTION.get(receiver.getClass()) || quiet()) {
            return;
        }
        nAccessField(receiver, COLLECTION_KEY, write, site);
    }

    public static void updaterCreated(Object updater, Class<?> owner, String name, Class<?> type, long site) {
        if (!on) return;
        if (type == null) {
            // The int and long updaters: the type is theirs.
            type = updater instanceof java.util.concurrent.atomic.AtomicLongFieldUpdater ? long.class : int.class;
        }
        remember(updater, INSTANCE_FIELD, owner, name, type);
    }

    public static java.lang.invoke.VarHandle findVarHandle(
            java.lang.invoke.MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?> type, long site)
            throws NoSuchFieldException, IllegalAccessException {
        java.lang.invoke.VarHandle h = lookup.findVarHandle(owner, name, type);
        if (on) remember(h, INSTANCE_FIELD, owner, name, type);
        return h;
    }

    public static java.lang.invoke.VarHandle findStaticVarHandle(
            java.lang.invoke.MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?> type, long site)
            throws NoSuchFieldException, IllegalAccessException {
        java.lang.invoke.VarHandle h = lookup.findStaticVarHandle(owner, name, type);
        if (on) remember(h, STATIC_FIELD, owner, name, type);
        return h;
    }

    public static java.lang.invoke.VarHandle arrayElementVarHandle(Class<?> arrayClass, long site) {
        java.lang.invoke.VarHandle h = java.lang.invoke.MethodHandles.arrayElementVarHandle(arrayClass);
        if (on) {
            synchronized (HANDLE_FIELDS) {
                HANDLE_FIELDS.put(h, new FieldRef(ARRAY_ELEMENT, 0));
            }
        }
        return h;
    }

    public static long unsafeObjectFieldOffset(Object unsafe, java.lang.reflect.Field field, long site) {
        long offset = ((sun.misc.Unsafe) unsafe).objectFieldOffset(field);
        if (on) {
            long key = fieldKey(field.getDeclaringClass(), field.getName(), field.getType());
            // Not a HashMap: the JDK collections are rewritten with scheduling points, and this
            // runs under a real monitor the model cannot see.
            synchronized (OFFSET_FIELDS) {
                java.util.Map<Long, Long> offsets = OFFSET_FIELDS.get(field.getDeclaringClass());
                if (offsets == null) {
                    offsets = new java.util.concurrent.ConcurrentHashMap<>();
                    OFFSET_FIELDS.put(field.getDeclaringClass(), offsets);
                }
                offsets.put(offset, key);
            }
        }
        return offset;
    }

    private static void remember(Object handle, int kind, Class<?> owner, String name, Class<?> type) {
        FieldRef f = new FieldRef(kind, fieldKey(owner, name, type));
        synchronized (HANDLE_FIELDS) {
            HANDLE_FIELDS.put(handle, f);
        }
    }

    /** The agent's key of the field written {@code owner.name:descriptor} in the site table. */
    private static long fieldKey(Class<?> owner, String name, Class<?> type) {
        return nFieldKey(owner.getName().replace('.', '/') + "." + name + ":" + descriptor(type));
    }

    private static String descriptor(Class<?> c) {
        if (c.isArray()) return c.getName().replace('.', '/');
        if (!c.isPrimitive()) return "L" + c.getName().replace('.', '/') + ";";
        if (c == int.class) return "I";
        if (c == long.class) return "J";
        if (c == boolean.class) return "Z";
        if (c == byte.class) return "B";
        if (c == char.class) return "C";
        if (c == short.class) return "S";
        if (c == float.class) return "F";
        if (c == double.class) return "D";
        return "V";
    }

    // ---- agent-on internals ---------------------------------------------------------------

    /** nWait / nWaitReturned: not controlled, done, or wait in the real wait() and ask again. */
    private static final int WAIT_PASS = 0;
    private static final int WAIT_DONE = 1;
    private static final int WAIT_REAL = 2;

    /**
     * A modelled {@code wait}: the agent releases the model monitor; the real one is released by
     * a real {@code wait()}, from which the agent wakes this thread (with a targeted interrupt)
     * when the scheduler picks it. Returns false when the thread is not under control.
     */
    private static boolean waitControlled(Object obj, long millis, long site) {
        int r = nWait(obj, millis, site);
        if (r == WAIT_PASS) return false;
        while (r == WAIT_REAL) {
            try {
                obj.wait();
            } catch (InterruptedException e) {
                // The agent's wake-up (program interrupts are modelled, never real).
            }
            r = nWaitReturned(millis);
        }
        // The wake-up may have landed after wait() returned on its own: never leave it set.
        Thread.interrupted();
        return true;
    }

    /**
     * A modelled join. When the model says the target finished, the real thread may still be
     * in its last JVM-internal steps; a real join (which returns at once or nearly) makes
     * {@code isAlive()} false afterwards, as in plain Java.
     */
    private static boolean joinControlled(Thread t, long millis, long site) throws InterruptedException {
        int r = nJoin(t, millis, site);
        if (r == 0) return false;
        if (r == 1) t.join();
        return true;
    }

    // ---- natives, bound by the agent ------------------------------------------------------
    // A boolean result false means "this thread is not under rankcheck's control: do the real
    // operation"; InterruptedException, IllegalMonitorStateException and ExecutionAborted are
    // thrown by the natives themselves.

    private static native void nAccess(Object obj, int index, long site, boolean write);
    private static native void nAllocated(Object obj, long site);
    private static native void nClassInitBegin(Class<?> c, long site);
    private static native void nTaskFailed(String failure, long site);
    private static native void nCasFailed(long site);
    private static native void nMonitorEnter(Object obj, long site);
    private static native void nMonitorExit(Object obj, long site);
    private static native int nWait(Object obj, long millis, long site);
    private static native int nWaitReturned(long millis);
    private static native boolean nNotify(Object obj, boolean all, long site);
    private static native boolean nThreadStart(Thread t, long site);
    private static native void nThreadStarted(Thread t);
    /** 0: not controlled; 1: the target finished; 2: returned without it (timed out). */
    private static native int nJoin(Thread t, long millis, long site);
    private static native boolean nSleep(long millis, long site);
    private static native boolean nYield(long site);
    private static native boolean nInterrupt(Thread t, long site);
    /** -1: not controlled; 0 or 1: the answer. */
    private static native int nInterrupted(Thread t, boolean clear, long site);
    /** -1: not controlled; else the ordinal of the model's {@code Thread.State}. */
    private static native int nThreadState(Thread t, long site);
    /** -1: not controlled; else how many of the execution's threads have not ended. */
    private static native int nLiveThreads(long site);
    private static native boolean nPark(Object blocker, long time, boolean absolute, long site);
    private static native boolean nUnpark(Thread t, long site);
    private static native boolean nExit(int status, long site);
    private static native int nIdentityHash(Object obj, long site);
    /** The virtual clock; Long.MIN_VALUE for a thread rankcheck does not control. */
    private static native long nClock(boolean nanos, long site);
    private static native double nRandomDouble(long site);
    private static native long nRandomSeed(long site);
    /** An access of the field with key {@code field} of {@code obj} (null: a static field). */
    private static native void nAccessField(Object obj, long field, boolean write, long site);
    /** The agent's key of a field written {@code owner.name:descriptor}. */
    private static native long nFieldKey(String detail);

    /** Whether calls on objects of {@code c} are scheduling points ({@link #collectionCall}). */
    private static native boolean nUncontrolledCollection(Class<?> c);

    // ---- method-reference bridges ---------------------------------------------------------
    // A method reference or MethodHandle constant naming a replaced JDK method
    // (threads.forEach(Thread::start)) has no call site in the bytecode: the rewriter points the
    // constant at these overloads instead, which call the hook with site 0 ("no site").

    public static void objectWait(Object obj) throws InterruptedException {
        objectWait(obj, 0L);
    }

    public static void objectWaitTimed(Object obj, long millis) throws InterruptedException {
        objectWaitTimed(obj, millis, 0L);
    }

    public static void objectWaitTimedNanos(Object obj, long millis, int nanos)
            throws InterruptedException {
        objectWaitTimedNanos(obj, millis, nanos, 0L);
    }

    public static void objectNotify(Object obj) {
        objectNotify(obj, 0L);
    }

    public static void objectNotifyAll(Object obj) {
        objectNotifyAll(obj, 0L);
    }

    public static void threadStart(Thread t) {
        threadStart(t, 0L);
    }

    public static void threadJoin(Thread t) throws InterruptedException {
        threadJoin(t, 0L);
    }

    public static void threadJoinTimed(Thread t, long millis) throws InterruptedException {
        threadJoinTimed(t, millis, 0L);
    }

    public static void threadJoinTimedNanos(Thread t, long millis, int nanos)
            throws InterruptedException {
        threadJoinTimedNanos(t, millis, nanos, 0L);
    }

    public static void threadSleep(long millis) throws InterruptedException {
        threadSleep(millis, 0L);
    }

    public static void threadSleepNanos(long millis, int nanos) throws InterruptedException {
        threadSleepNanos(millis, nanos, 0L);
    }

    public static void threadYield() {
        threadYield(0L);
    }

    public static void threadOnSpinWait() {
        threadOnSpinWait(0L);
    }

    public static void threadInterrupt(Thread t) {
        threadInterrupt(t, 0L);
    }

    public static boolean threadInterrupted() {
        return threadInterrupted(0L);
    }

    public static boolean threadIsInterrupted(Thread t) {
        return threadIsInterrupted(t, 0L);
    }

    public static boolean threadIsAlive(Thread t) {
        return threadIsAlive(t, 0L);
    }

    public static Thread.State threadGetState(Thread t) {
        return threadGetState(t, 0L);
    }

    public static int threadActiveCount() {
        return threadActiveCount(0L);
    }

    public static int threadEnumerate(Thread[] out) {
        return threadEnumerate(out, 0L);
    }

    public static void park() {
        park(0L);
    }

    public static void parkBlocker(Object blocker) {
        parkBlocker(blocker, 0L);
    }

    public static void parkNanos(long nanos) {
        parkNanos(nanos, 0L);
    }

    public static void parkNanosBlocker(Object blocker, long nanos) {
        parkNanosBlocker(blocker, nanos, 0L);
    }

    public static void parkUntil(long deadline) {
        parkUntil(deadline, 0L);
    }

    public static void parkUntilBlocker(Object blocker, long deadline) {
        parkUntilBlocker(blocker, deadline, 0L);
    }

    public static void unpark(Thread t) {
        unpark(t, 0L);
    }

    public static void systemExit(int status) {
        systemExit(status, 0L);
    }

    public static void runtimeExit(Runtime runtime, int status) {
        runtimeExit(runtime, status, 0L);
    }

    public static void runtimeHalt(Runtime runtime, int status) {
        runtimeHalt(runtime, status, 0L);
    }

    public static void addShutdownHook(Runtime runtime, Thread hook) {
        addShutdownHook(runtime, hook, 0L);
    }

    public static boolean removeShutdownHook(Runtime runtime, Thread hook) {
        return removeShutdownHook(runtime, hook, 0L);
    }

    public static int identityHashCode(Object obj) {
        return identityHashCode(obj, 0L);
    }

    public static long currentTimeMillis() {
        return currentTimeMillis(0L);
    }

    public static long nanoTime() {
        return nanoTime(0L);
    }

    public static double mathRandom() {
        return mathRandom(0L);
    }

    public static java.lang.reflect.Method[] classMethods(Class<?> c) {
        return classMethods(c, 0L);
    }

    public static java.lang.reflect.Method[] classDeclaredMethods(Class<?> c) {
        return classDeclaredMethods(c, 0L);
    }

    public static java.lang.reflect.Constructor<?>[] classConstructors(Class<?> c) {
        return classConstructors(c, 0L);
    }

    public static java.lang.reflect.Constructor<?>[] classDeclaredConstructors(Class<?> c) {
        return classDeclaredConstructors(c, 0L);
    }
}
