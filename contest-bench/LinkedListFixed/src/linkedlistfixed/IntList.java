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
