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

    /** Inserts {@code value} so that it ends up at position {@code index} (0 ≤ index ≤ size). */
    void insert(int index, int value) {
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
    boolean removeFirst(int value) {
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

    int get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("get " + index + " of " + size);
        }
        return nodeAt(index).value;
    }

    /** Position of the first node holding {@code value}, or -1. */
    int indexOf(int value) {
        int i = 0;
        for (Node x = head; x != null; x = x.next, i++) {
            if (x.value == value) {
                return i;
            }
        }
        return -1;
    }

    /** Reverses the list in place. */
    void reverse() {
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

    int[] toArray() {
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
