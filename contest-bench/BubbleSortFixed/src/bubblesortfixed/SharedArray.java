package bubblesortfixed;

/** The array being sorted. A bubble pass holds the array's lock, so passes never overlap. */
final class SharedArray {
    private final int[] data;

    /** A descending array of {@code n} elements: bubble sort needs exactly n - 1 passes. */
    SharedArray(int n) {
        data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = n - i;
        }
    }

    /** One bubble pass from left to right; says whether anything moved. */
    synchronized boolean pass() {
        boolean moved = false;
        for (int i = 0; i + 1 < data.length; i++) {
            if (data[i] > data[i + 1]) {
                int t = data[i];
                data[i] = data[i + 1];
                data[i + 1] = t;
                moved = true;
            }
        }
        return moved;
    }

    synchronized boolean isSorted() {
        for (int i = 0; i + 1 < data.length; i++) {
            if (data[i] > data[i + 1]) {
                return false;
            }
        }
        return true;
    }

    synchronized String show() {
        return java.util.Arrays.toString(data);
    }
}
