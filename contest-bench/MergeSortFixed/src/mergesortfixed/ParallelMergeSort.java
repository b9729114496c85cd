package mergesortfixed;

/**
 * Top-down merge sort that hands the left half of a large enough range to a helper thread while
 * the budget allows, sorts the right half itself, joins the helper and merges.
 */
final class ParallelMergeSort {
    private final int[] data;
    private final int[] scratch;
    private final ThreadBudget budget;
    private final int minParallel;

    ParallelMergeSort(int[] data, ThreadBudget budget, int minParallel) {
        this.data = data;
        this.scratch = new int[data.length];
        this.budget = budget;
        this.minParallel = minParallel;
    }

    void sort() throws InterruptedException {
        sort(0, data.length);
    }

    private void sort(int lo, int hi) throws InterruptedException {
        if (hi - lo < 2) {
            return;
        }
        int mid = (lo + hi) >>> 1;
        Helper helper = null;
        if (hi - lo >= minParallel && budget.tryTake()) {
            helper = new Helper(lo, mid);
            helper.start();
        } else {
            sort(lo, mid);
        }
        sort(mid, hi);
        if (helper != null) {
            helper.join();
        }
        merge(lo, mid, hi);
    }

    private void merge(int lo, int mid, int hi) {
        int i = lo;
        int j = mid;
        for (int k = lo; k < hi; k++) {
            if (j >= hi || (i < mid && data[i] <= data[j])) {
                scratch[k] = data[i++];
            } else {
                scratch[k] = data[j++];
            }
        }
        System.arraycopy(scratch, lo, data, lo, hi - lo);
    }

    /** Sorts one range in its own thread. */
    private final class Helper extends Thread {
        private final int lo;
        private final int hi;

        Helper(int lo, int hi) {
            super("sort-" + lo + "-" + hi);
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        public void run() {
            try {
                sort(lo, hi);
            } catch (InterruptedException e) {
                throw new IllegalStateException(getName() + " interrupted", e);
            }
        }
    }
}
