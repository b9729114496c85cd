package bubblesort2fixed;

/**
 * A worker that makes one bubble pass over the shared array while holding the array's lock, so
 * passes never overlap (locking each swap alone would not do: interleaved passes can leave the
 * array unsorted).
 */
final class Passer extends Thread {
    private final int[] data;

    Passer(int id, int[] data) {
        super("passer-" + id);
        this.data = data;
    }

    @Override
    public void run() {
        synchronized (data) {
            for (int i = 0; i + 1 < data.length; i++) {
                if (data[i] > data[i + 1]) {
                    swap(i, i + 1);
                }
            }
        }
    }

    private void swap(int i, int j) {
        int held = data[i];
        data[i] = data[j];
        data[j] = held;
    }
}
