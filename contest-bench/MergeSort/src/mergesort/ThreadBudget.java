package mergesort;

/**
 * How many more helper threads the sort may start. Taking one is a check of {@code available}
 * followed by a decrement, with no lock between them.
 */
final class ThreadBudget {
    private final int limit;
    private int available;
    private int taken;

    ThreadBudget(int limit) {
        this.limit = limit;
        this.available = limit;
    }

    /** The bug: check-then-decrement, so two sorters can both take the last thread. */
    boolean tryTake() {
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
