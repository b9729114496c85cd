package linkedlistfixed;

/**
 * A singly linked list of ints with a tail pointer; every operation holds the list's lock, so an
 * append links its node in atomically.
 */
final class IntList {
    private static final class Node {
        final int value;
        Node next;

        Node(int value) {
            this.value = value;
        }
    }

    private Node head;
    private Node tail;
    private int size;

    /** The fix: appending holds the lock, so no two appends link to the same tail. */
    synchronized void append(int value) {
        Node node = new Node(value);
        Node last = tail;
        if (last == null) {
            head = node;
        } else {
            last.next = node;
        }
        tail = node;
        size++;
    }

    /** Inserts {@code value} so that it ends up at position {@code index} (0 ≤ index ≤ size). */
    synchronized void insert(int index, int value) {
        if (index < 0 || index > size) {
            throw new IndexOutOfBoundsException("insert at " + index + " of " + size);
        }
        if (index == size) {
            append(value);
            return;
        }
        Node node = new Node(value);
        if (index == 0) {
            node.next = head;
            head = node;
        } else {
            Node before = nodeAt(index - 1);
            node.next = before.next;
            before.next = node;
        }
        size++;
    }

    /** Removes the first node holding {@code value}; says whether there was one. */
    synchronized boolean removeFirst(int value) {
        Node before = null;
        for (Node x = head; x != null; before = x, x = x.next) {
            if (x.value == value) {
                if (before == null) {
                    head = x.next;
                } else {
                    before.next = x.next;
                }
                if (x == tail) {
                    tail = before;
                }
                size--;
                return true;
            }
        }
        return false;
    }

    synchronized int get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("get " + index + " of " + size);
        }
        return nodeAt(index).value;
    }

    /** Position of the first node holding {@code value}, or -1. */
    synchronized int indexOf(int value) {
        int i = 0;
        for (Node x = head; x != null; x = x.next, i++) {
            if (x.value == value) {
                return i;
            }
        }
        return -1;
    }

    /** Reverses the list in place. */
    synchronized void reverse() {
        Node previous = null;
        Node x = head;
        tail = head;
        while (x != null) {
            Node next = x.next;
            x.next = previous;
            previous = x;
            x = next;
        }
        head = previous;
    }

    synchronized int[] toArray() {
        int[] out = new int[size];
        int i = 0;
        for (Node x = head; x != null && i < out.length; x = x.next) {
            out[i++] = x.value;
        }
        return out;
    }

    private Node nodeAt(int index) {
        Node x = head;
        for (int i = 0; i < index; i++) {
            x = x.next;
        }
        return x;
    }

    /** The number of nodes reachable from the head. */
    synchronized int countNodes() {
        int n = 0;
        for (Node x = head; x != null; x = x.next) {
            n++;
        }
        return n;
    }

    synchronized boolean contains(int value) {
        for (Node x = head; x != null; x = x.next) {
            if (x.value == value) {
                return true;
            }
        }
        return false;
    }

    /** The size as counted by appends. */
    synchronized int size() {
        return size;
    }

    @Override
    public synchronized String toString() {
        StringBuilder s = new StringBuilder("[");
        for (Node x = head; x != null; x = x.next) {
            s.append(x == head ? "" : ", ").append(x.value);
        }
        return s.append(']').toString();
    }
}
