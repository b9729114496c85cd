package synchashset;

/**
 * A thread-safe wrapper around {@link IntHashSet}: every operation holds the wrapper's lock.
 *
 * <p>The bug is in the operations on two sets. {@link #equals} holds this set's lock while it
 * asks the other set for its size and its elements, which takes the other set's lock: the locks
 * of two sets are nested in the order of the call, so {@code a.equals(b)} and {@code b.equals(a)}
 * in two threads can deadlock.
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
    public synchronized boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (!(o instanceof SyncSet)) {
            return false;
        }
        SyncSet other = (SyncSet) o;
        // Holding this set's lock, take the other's (in size() and containsAll()): nested locks.
        return other.size() == set.size() && other.containsAll(set.toArray());
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
