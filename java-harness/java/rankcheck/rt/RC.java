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

    /** Set by the agent once its natives are bound. Plain field: written before any app thread. */
    static volatile boolean on;

    // ---- data accesses --------------------------------------------------------------------

    public static void fieldRead(Object obj, long site) {
        if (on) nAccess(obj, -1, site, false);
    }

    public static void fieldWrite(Object obj, long site) {
        if (on) nAccess(obj, -1, site, true);
    }

    public static void arrayRead(Object array, int index, long site) {
        if (on) nAccess(array, index, site, false);
    }

    public static void arrayWrite(Object array, int index, long site) {
        if (on) nAccess(array, index, site, true);
    }

    public static void allocated(Object obj, long site) {
        if (on) nAllocated(obj, site);
    }

    // ---- monitors -------------------------------------------------------------------------

    public static void monitorEnter(Object obj, long site) {
        if (on) nMonitorEnter(obj, site);
    }

    public static void monitorExit(Object obj, long site) {
        if (on) nMonitorExit(obj, site);
    }

    // ---- Object ---------------------------------------------------------------------------

    public static void objectWait(Object obj, long site) throws InterruptedException {
        if (on) nWait(obj, -1L, site);
        else obj.wait();
    }

    public static void objectWaitTimed(Object obj, long millis, long site) throws InterruptedException {
        if (on) nWait(obj, checkMillis(millis), site);
        else obj.wait(millis);
    }

    public static void objectWaitTimedNanos(Object obj, long millis, int nanos, long site)
            throws InterruptedException {
        if (on) nWait(obj, checkMillis(millis) + (nanos > 0 ? 1 : 0), site);
        else obj.wait(millis, nanos);
    }

    public static void objectNotify(Object obj, long site) {
        if (on) nNotify(obj, false, site);
        else obj.notify();
    }

    public static void objectNotifyAll(Object obj, long site) {
        if (on) nNotify(obj, true, site);
        else obj.notifyAll();
    }

    // ---- Thread ---------------------------------------------------------------------------

    public static void threadStart(Thread t, long site) {
        if (on) nThreadStart(t, site);
        else t.start();
    }

    public static void threadJoin(Thread t, long site) throws InterruptedException {
        if (on) nJoin(t, -1L, site);
        else t.join();
    }

    public static void threadJoinTimed(Thread t, long millis, long site) throws InterruptedException {
        if (on) nJoin(t, checkMillis(millis), site);
        else t.join(millis);
    }

    public static void threadJoinTimedNanos(Thread t, long millis, int nanos, long site)
            throws InterruptedException {
        if (on) nJoin(t, checkMillis(millis) + (nanos > 0 ? 1 : 0), site);
        else t.join(millis, nanos);
    }

    public static void threadSleep(long millis, long site) throws InterruptedException {
        if (on) nSleep(checkMillis(millis), site);
        else Thread.sleep(millis);
    }

    public static void threadSleepNanos(long millis, int nanos, long site) throws InterruptedException {
        if (on) nSleep(checkMillis(millis), site);
        else Thread.sleep(millis, nanos);
    }

    public static void threadYield(long site) {
        if (on) nYield(site);
        else Thread.yield();
    }

    public static void threadOnSpinWait(long site) {
        if (on) nYield(site);
        else Thread.onSpinWait();
    }

    public static void threadInterrupt(Thread t, long site) {
        if (on) nInterrupt(t, site);
        else t.interrupt();
    }

    public static boolean threadInterrupted(long site) {
        return on ? nInterrupted(null, true, site) : Thread.interrupted();
    }

    public static boolean threadIsInterrupted(Thread t, long site) {
        return on ? nInterrupted(t, false, site) : t.isInterrupted();
    }

    // ---- LockSupport ----------------------------------------------------------------------

    public static void park(long site) {
        if (on) nPark(null, -1L, false, site);
        else LockSupport.park();
    }

    public static void parkBlocker(Object blocker, long site) {
        if (on) nPark(blocker, -1L, false, site);
        else LockSupport.park(blocker);
    }

    public static void parkNanos(long nanos, long site) {
        if (on) nPark(null, nanos, false, site);
        else LockSupport.parkNanos(nanos);
    }

    public static void parkNanosBlocker(Object blocker, long nanos, long site) {
        if (on) nPark(blocker, nanos, false, site);
        else LockSupport.parkNanos(blocker, nanos);
    }

    public static void parkUntil(long deadline, long site) {
        if (on) nPark(null, deadline, true, site);
        else LockSupport.parkUntil(deadline);
    }

    public static void parkUntilBlocker(Object blocker, long deadline, long site) {
        if (on) nPark(blocker, deadline, true, site);
        else LockSupport.parkUntil(blocker, deadline);
    }

    public static void unpark(Thread t, long site) {
        if (on) nUnpark(t, site);
        else LockSupport.unpark(t);
    }

    // ---- process exit ---------------------------------------------------------------------

    public static void systemExit(int status, long site) {
        if (on) nExit(status, site);
        else System.exit(status);
    }

    public static void runtimeExit(Runtime runtime, int status, long site) {
        if (on) nExit(status, site);
        else runtime.exit(status);
    }

    public static void runtimeHalt(Runtime runtime, int status, long site) {
        if (on) nExit(status, site);
        else runtime.halt(status);
    }

    // ---- nondeterminism pinned for replay -------------------------------------------------

    public static int identityHashCode(Object obj, long site) {
        return on ? nIdentityHash(obj, site) : System.identityHashCode(obj);
    }

    public static long currentTimeMillis(long site) {
        return on ? nClock(false, site) : System.currentTimeMillis();
    }

    public static long nanoTime(long site) {
        return on ? nClock(true, site) : System.nanoTime();
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

    // ---- natives, bound by the agent ------------------------------------------------------

    private static native void nAccess(Object obj, int index, long site, boolean write);
    private static native void nAllocated(Object obj, long site);
    private static native void nMonitorEnter(Object obj, long site);
    private static native void nMonitorExit(Object obj, long site);
    private static native void nWait(Object obj, long millis, long site) throws InterruptedException;
    private static native void nNotify(Object obj, boolean all, long site);
    private static native void nThreadStart(Thread t, long site);
    private static native void nJoin(Thread t, long millis, long site) throws InterruptedException;
    private static native void nSleep(long millis, long site) throws InterruptedException;
    private static native void nYield(long site);
    private static native void nInterrupt(Thread t, long site);
    private static native boolean nInterrupted(Thread t, boolean clear, long site);
    private static native void nPark(Object blocker, long time, boolean absolute, long site);
    private static native void nUnpark(Thread t, long site);
    private static native void nExit(int status, long site);
    private static native int nIdentityHash(Object obj, long site);
    private static native long nClock(boolean nanos, long site);
    private static native double nRandomDouble(long site);
    private static native long nRandomSeed(long site);
}
