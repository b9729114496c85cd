package mergesortbug;

/**
 * Counts the helper threads running, against a maximum. Starting one is checked and counted under
 * the lock; a helper that finishes takes itself off the count with a plain decrement.
 */
final class HelperCount {
    private final int max;
    private int active;
    private int started;

    HelperCount(int max) {
        this.max = max;
    }

    synchronized boolean tryStart() {
        if (active >= max) {
            return false;
        }
        active++;
        started++;
        return true;
    }

    /** The bug: a read-modify-write without the lock; a concurrent update of {@code active} is lost. */
    void finished() {
        active = active - 1;
    }

    synchronized int active() {
        return active;
    }

    synchronized int started() {
        return started;
    }
}
