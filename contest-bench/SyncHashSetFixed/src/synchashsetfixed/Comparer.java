package synchashsetfixed;

/** Checks a few times that its two sets are equal, counting the answers. */
final class Comparer extends Thread {
    private final SyncSet mine;
    private final SyncSet theirs;
    private final int rounds;
    private int equal;

    Comparer(int id, SyncSet mine, SyncSet theirs, int rounds) {
        super("comparer-" + id);
        this.mine = mine;
        this.theirs = theirs;
        this.rounds = rounds;
    }

    @Override
    public void run() {
        for (int i = 0; i < rounds; i++) {
            if (mine.equals(theirs)) {
                equal++;
            }
        }
    }

    int equal() {
        return equal;
    }
}
