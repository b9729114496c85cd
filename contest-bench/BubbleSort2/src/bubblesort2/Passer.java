package bubblesort2;

/**
 * A worker that makes one bubble pass over the shared array with no lock: its compare-and-swap of
 * two neighbours is three separate memory steps, and another pass can run in between.
 */
final class Passer extends Thread {
    private final int[] data;

    Passer(int id, int[] data) {
        super("passer-" + id);
        this.data = data;
    }

    @Override
    public void run() {
        for (int i = 0; i + 1 < data.length; i++) {
            if (data[i] > data[i + 1]) {
                swap(i, i + 1);
            }
        }
    }

    private void swap(int i, int j) {
        int held = data[i];
        data[i] = data[j];
        data[j] = held;
    }
}
