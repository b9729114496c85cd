package mergesortbugfixed;

/**
 * Merge sort of one range of a shared array: ranges of at least {@code minParallel} elements
 * send their left half to a new helper thread when the helper count allows it.
 */
class Sorter {
    final int[] data;
    final int[] scratch;
    final HelperCount helpers;
    final int minParallel;

    Sorter(int[] data, int[] scratch, HelperCount helpers, int minParallel) {
        this.data = data;
        this.scratch = scratch;
        this.helpers = helpers;
        this.minParallel = minParallel;
    }

    void sort(int lo, int hi) throws InterruptedException {
        if (hi - lo < 2) {
            return;
        }
        int mid = (lo + hi) >>> 1;
        SortThread left = null;
        if (hi - lo >= minParallel && helpers.tryStart()) {
            left = new SortThread(this, lo, mid);
            left.start();
        } else {
            sort(lo, mid);
        }
        sort(mid, hi);
        if (left != null) {
            left.join();
        }
        merge(lo, mid, hi);
    }

    private void merge(int lo, int mid, int hi) {
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
            scratch[k++] = data[i] <= data[j] ? data[i++] : data[j++];
        }
        while (i < mid) {
            scratch[k++] = data[i++];
        }
        while (j < hi) {
            scratch[k++] = data[j++];
        }
        for (k = lo; k < hi; k++) {
            data[k] = scratch[k];
        }
    }
}
