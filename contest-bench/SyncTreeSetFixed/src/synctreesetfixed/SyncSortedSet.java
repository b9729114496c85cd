package synctreesetfixed;

/**
 * A thread-safe wrapper around {@link IntTreeSet}: every operation holds the wrapper's lock.
 *
 * <p>The fix: {@link #addAll} copies the other set under the other set's lock and only then adds
 * the copy under its own lock, so no walk ever runs over a tree another thread may change, and
 * no thread holds two sets' locks at once.
 */
final class SyncSortedSet {
    private final IntTreeSet tree = new IntTreeSet();

    synchronized boolean add(int key) {
        return tree.add(key);
    }

    synchronized boolean contains(int key) {
        return tree.contains(key);
    }

    synchronized int size() {
        return tree.size();
    }

    synchronized int first() {
        return tree.first();
    }

    /** Adds every element of {@code other}; says whether this set changed. */
    boolean addAll(SyncSortedSet other) {
        int[] copy = other.toArray(); // under the other set's lock only
        return addEach(copy);
    }

    private synchronized boolean addEach(int[] keys) {
        boolean changed = false;
        for (int k : keys) {
            changed |= tree.add(k);
        }
        return changed;
    }

    /** The elements in ascending order. */
    synchronized int[] toArray() {
        int[] out = new int[tree.size()];
        int n = 0;
        for (IntTreeSet.Cursor c = tree.cursor(); c.hasNext();) {
            out[n++] = c.next();
        }
        return out;
    }
}
