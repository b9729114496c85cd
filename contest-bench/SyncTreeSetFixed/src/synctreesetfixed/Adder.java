package synctreesetfixed;

/** Adds new elements {@code first, first + step, …} to a set. */
final class Adder extends Thread {
    private final SyncSortedSet set;
    private final int first;
    private final int step;
    private final int count;

    Adder(int id, SyncSortedSet set, int first, int step, int count) {
        super("adder-" + id);
        this.set = set;
        this.first = first;
        this.step = step;
        this.count = count;
    }

    @Override
    public void run() {
        for (int i = 0; i < count; i++) {
            set.add(first + i * step);
        }
    }
}
