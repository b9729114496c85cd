package mergesortbugfixed;

/**
 * Counts the helper threads running, against a maximum. Starting one and finishing one both update
 * the count under the lock.
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

    /** The fix: the decrement holds the lock like the increment. */
    synchronized void finished() {
        active = active - 1;
    }

    synchronized int active() {
        return active;
    }

    synchronized int started() {
        return started;
    }
}
