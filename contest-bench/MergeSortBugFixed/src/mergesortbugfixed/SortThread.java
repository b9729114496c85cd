package mergesortbugfixed;

/** A helper thread: sorts its range, then takes itself off the helper count. */
final class SortThread extends Thread {
    private final Sorter sorter;
    private final int lo;
    private final int hi;

    SortThread(Sorter sorter, int lo, int hi) {
        super("helper-" + lo + "-" + hi);
        this.sorter = sorter;
        this.lo = lo;
        this.hi = hi;
    }

    @Override
    public void run() {
        try {
            sorter.sort(lo, hi);
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        } finally {
            sorter.helpers.finished();
        }
    }
}
