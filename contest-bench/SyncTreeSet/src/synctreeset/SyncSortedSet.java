package synctreeset;

/**
 * A thread-safe wrapper around {@link IntTreeSet}: every operation holds the wrapper's lock.
 *
 * <p>The bug: {@link #addAll} holds only this set's lock while it walks the other set's tree, so
 * a thread adding to the other set meanwhile changes the tree under the walk (the walk fails
 * fast with a ConcurrentModificationException, or would miss or repeat elements).
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
    synchronized boolean addAll(SyncSortedSet other) {
        boolean changed = false;
        for (IntTreeSet.Cursor c = other.tree.cursor(); c.hasNext();) { // other's lock not held
            changed |= tree.add(c.next());
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
