package mergesortfixed;

/**
 * How many more helper threads the sort may start. Taking one checks and decrements
 * {@code available} under the budget's lock, as one step.
 */
final class ThreadBudget {
    private final int limit;
    private int available;
    private int taken;

    ThreadBudget(int limit) {
        this.limit = limit;
        this.available = limit;
    }

    /** The fix: check and decrement atomically, so the last thread is taken once. */
    synchronized boolean tryTake() {
        if (available > 0) {
            available = available - 1;
            if (available < 0) {
                throw new AssertionError("MergeSort: BUG thread budget overdrawn: more than " + limit
                        + " helper threads");
            }
            countTaken();
            return true;
        }
        return false;
    }

    private synchronized void countTaken() {
        taken++;
    }

    synchronized int taken() {
        return taken;
    }

    int limit() {
        return limit;
    }
}
