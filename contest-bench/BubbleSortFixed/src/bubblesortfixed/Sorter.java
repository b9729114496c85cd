package bubblesortfixed;

/** One worker of the parallel bubble sort: it makes one pass over the shared array. */
final class Sorter extends Thread {
    private final SharedArray array;

    Sorter(int id, SharedArray array) {
        super("sorter-" + id);
        this.array = array;
    }

    @Override
    public void run() {
        array.pass();
    }
}
