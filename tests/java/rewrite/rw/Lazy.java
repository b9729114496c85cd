package rw;

import java.util.concurrent.locks.ReentrantLock;

/** Lazy initialization, right and wrong: the rewriter warns about the unsafe ones only. */
public class Lazy {
    static class Settings {
        int port = 8080;
    }

    private static Settings shared;
    private static volatile Settings safeShared;
    private boolean loaded;
    private Settings own;
    private final ReentrantLock lock = new ReentrantLock();

    // Unsafe: checked outside the lock, field not volatile.
    static Settings shared() {
        if (shared == null) {
            synchronized (Lazy.class) {
                if (shared == null) {
                    shared = new Settings();
                }
            }
        }
        return shared;
    }

    // Safe: the same shape on a volatile field.
    static Settings safeShared() {
        Settings s = safeShared;
        if (s == null) {
            synchronized (Lazy.class) {
                s = safeShared;
                if (s == null) {
                    safeShared = s = new Settings();
                }
            }
        }
        return s;
    }

    // Unsafe: a plain flag guarding other state, under a Lock.
    void load() {
        if (!loaded) {
            lock.lock();
            try {
                if (!loaded) {
                    own = new Settings();
                    loaded = true;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    // Safe: every access under the lock.
    synchronized Settings own() {
        if (own == null) {
            own = new Settings();
        }
        return own;
    }

    // Safe: checked and made in two sections of the same lock.
    Settings ownInSections() {
        Settings found;
        synchronized (this) {
            found = own == null ? null : own;
        }
        if (found != null) {
            return found;
        }
        synchronized (this) {
            if (own == null) {
                own = new Settings();
            }
            return own;
        }
    }

    // A copy the JDK does not make atomic, and one it does.
    static String copies(StringBuffer from) {
        StringBuffer torn = new StringBuffer().append(from);
        StringBuffer whole = new StringBuffer().append(from.toString());
        return torn + "" + whole;
    }

    private static boolean stopped;
    private static volatile boolean stoppedVolatile;
    private int size;

    // Unsafe: a loop that calls nothing re-reads a plain flag; the JIT may read it once.
    static long spinUntilStopped() {
        long spins = 0;
        while (!stopped) {
            spins++;
        }
        return spins;
    }

    // Safe: the same on a volatile flag, a plain flag with a call in the loop, a plain int.
    long spinsThatSeeTheWrite() {
        long spins = 0;
        while (!stoppedVolatile) {
            spins++;
        }
        while (!stopped) {
            Thread.onSpinWait();
        }
        for (int i = 0; i < size; i++) {
            spins += i;
        }
        return spins;
    }

    // Safe: read outside, but not tested before the lock.
    Settings swap() {
        Settings before = own;
        synchronized (this) {
            own = null;
        }
        return before;
    }
}
