package synctreesetfixed;

/** Merges the source set into the target set, a few times. */
final class Merger extends Thread {
    private final SyncSortedSet target;
    private final SyncSortedSet source;
    private final int rounds;

    Merger(int id, SyncSortedSet target, SyncSortedSet source, int rounds) {
        super("merger-" + id);
        this.target = target;
        this.source = source;
        this.rounds = rounds;
    }

    @Override
    public void run() {
        for (int i = 0; i < rounds; i++) {
            target.addAll(source);
        }
    }
}
