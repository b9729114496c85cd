package linkedlist;

/**
 * A singly linked list of ints with a tail pointer. Reads are plain; {@link #append} links the
 * new node in with separate reads and writes of {@code tail}, {@code head} and the old tail's
 * {@code next}, and no lock.
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

    /** The bug: not atomic, so two appends can link to the same tail and one node is lost. */
    void append(int value) {
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
    int countNodes() {
        int n = 0;
        for (Node x = head; x != null; x = x.next) {
            n++;
        }
        return n;
    }

    boolean contains(int value) {
        for (Node x = head; x != null; x = x.next) {
            if (x.value == value) {
                return true;
            }
        }
        return false;
    }

    /** The size as counted by appends. */
    int size() {
        return size;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("[");
        for (Node x = head; x != null; x = x.next) {
            s.append(x == head ? "" : ", ").append(x.value);
        }
        return s.append(']').toString();
    }
}
