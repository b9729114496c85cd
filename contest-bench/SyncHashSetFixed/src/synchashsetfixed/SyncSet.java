package synchashsetfixed;

/**
 * A thread-safe wrapper around {@link IntHashSet}: every operation holds the wrapper's lock.
 *
 * <p>The fix is in the operations on two sets: {@link #equals} first copies the other set's
 * elements under the other set's lock alone, then compares under its own lock. No thread ever
 * holds two sets' locks at once, so comparisons cannot deadlock.
 */
final class SyncSet {
    private final IntHashSet set = new IntHashSet();

    synchronized boolean add(int key) {
        return set.add(key);
    }

    synchronized boolean remove(int key) {
        return set.remove(key);
    }

    synchronized boolean contains(int key) {
        return set.contains(key);
    }

    synchronized int size() {
        return set.size();
    }

    synchronized int[] toArray() {
        return set.toArray();
    }

    /** Every element of {@code keys} is in this set. */
    synchronized boolean containsAll(int[] keys) {
        for (int k : keys) {
            if (!set.contains(k)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (!(o instanceof SyncSet)) {
            return false;
        }
        int[] theirs = ((SyncSet) o).toArray(); // the other set's lock only
        return hasExactly(theirs);
    }

    /** This set holds exactly {@code keys} (which has no duplicates). */
    private synchronized boolean hasExactly(int[] keys) {
        return keys.length == set.size() && containsAll(keys);
    }

    @Override
    public synchronized int hashCode() {
        int h = 0;
        for (int k : set.toArray()) {
            h += k;
        }
        return h;
    }
}
