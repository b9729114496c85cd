package synchashsetfixed;

import java.util.ConcurrentModificationException;
import java.util.NoSuchElementException;

/**
 * A set of ints: a power-of-two table of chained buckets that doubles when three quarters full.
 * Not thread-safe. Its cursor is fail-fast: it throws {@link ConcurrentModificationException}
 * when the set changed since the cursor was made.
 */
final class IntHashSet {
    private static final class Entry {
        final int key;
        Entry next;

        Entry(int key, Entry next) {
            this.key = key;
            this.next = next;
        }
    }

    private Entry[] table = new Entry[8];
    private int size;
    private int modifications;

    private static int slot(int key, int length) {
        int h = key * 0x9E3779B1;
        return (h ^ (h >>> 16)) & (length - 1);
    }

    boolean contains(int key) {
        for (Entry e = table[slot(key, table.length)]; e != null; e = e.next) {
            if (e.key == key) {
                return true;
            }
        }
        return false;
    }

    boolean add(int key) {
        if (contains(key)) {
            return false;
        }
        int i = slot(key, table.length);
        table[i] = new Entry(key, table[i]);
        size++;
        modifications++;
        if (size > table.length / 4 * 3) {
            grow();
        }
        return true;
    }

    boolean remove(int key) {
        int i = slot(key, table.length);
        Entry before = null;
        for (Entry e = table[i]; e != null; before = e, e = e.next) {
            if (e.key == key) {
                if (before == null) {
                    table[i] = e.next;
                } else {
                    before.next = e.next;
                }
                size--;
                modifications++;
                return true;
            }
        }
        return false;
    }

    int size() {
        return size;
    }

    /** The elements in table order. */
    int[] toArray() {
        int[] out = new int[size];
        int n = 0;
        for (Cursor c = cursor(); c.hasNext();) {
            out[n++] = c.next();
        }
        return out;
    }

    private void grow() {
        Entry[] old = table;
        table = new Entry[old.length * 2];
        for (Entry head : old) {
            for (Entry e = head; e != null;) {
                Entry next = e.next;
                int i = slot(e.key, table.length);
                e.next = table[i];
                table[i] = e;
                e = next;
            }
        }
    }

    Cursor cursor() {
        return new Cursor();
    }

    /** Walks the set in table order; fails fast if the set changes meanwhile. */
    final class Cursor {
        private final int expected = modifications;
        private int bucket = -1;
        private Entry next;

        Cursor() {
            advance();
        }

        private void advance() {
            while (next == null && ++bucket < table.length) {
                next = table[bucket];
            }
        }

        boolean hasNext() {
            return next != null;
        }

        int next() {
            if (modifications != expected) {
                throw new ConcurrentModificationException("set changed while it was being walked");
            }
            if (next == null) {
                throw new NoSuchElementException();
            }
            int key = next.key;
            next = next.next;
            if (next == null) {
                advance();
            }
            return key;
        }
    }
}
