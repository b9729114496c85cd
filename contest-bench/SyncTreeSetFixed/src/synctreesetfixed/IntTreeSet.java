package synctreesetfixed;

import java.util.ArrayDeque;
import java.util.ConcurrentModificationException;
import java.util.NoSuchElementException;

/**
 * A sorted set of ints: an unbalanced binary search tree. Not thread-safe. Its cursor walks the
 * elements in ascending order and is fail-fast: it throws {@link ConcurrentModificationException}
 * when the tree changed since the cursor was made.
 */
final class IntTreeSet {
    private static final class Node {
        final int key;
        Node left;
        Node right;

        Node(int key) {
            this.key = key;
        }
    }

    private Node root;
    private int size;
    private int modifications;

    boolean contains(int key) {
        Node n = root;
        while (n != null) {
            if (key == n.key) {
                return true;
            }
            n = key < n.key ? n.left : n.right;
        }
        return false;
    }

    boolean add(int key) {
        if (root == null) {
            root = new Node(key);
        } else {
            Node n = root;
            while (true) {
                if (key == n.key) {
                    return false;
                }
                Node child = key < n.key ? n.left : n.right;
                if (child == null) {
                    if (key < n.key) {
                        n.left = new Node(key);
                    } else {
                        n.right = new Node(key);
                    }
                    break;
                }
                n = child;
            }
        }
        size++;
        modifications++;
        return true;
    }

    int size() {
        return size;
    }

    /** The smallest element; the set must not be empty. */
    int first() {
        if (root == null) {
            throw new NoSuchElementException();
        }
        Node n = root;
        while (n.left != null) {
            n = n.left;
        }
        return n.key;
    }

    Cursor cursor() {
        return new Cursor();
    }

    /** In-order walk with an explicit stack of the nodes still to visit. */
    final class Cursor {
        private final int expected = modifications;
        private final ArrayDeque<Node> pending = new ArrayDeque<>();

        Cursor() {
            pushLeftSpine(root);
        }

        private void pushLeftSpine(Node n) {
            for (; n != null; n = n.left) {
                pending.push(n);
            }
        }

        boolean hasNext() {
            return !pending.isEmpty();
        }

        int next() {
            if (modifications != expected) {
                throw new ConcurrentModificationException("tree changed while it was being walked");
            }
            Node n = pending.pop();
            pushLeftSpine(n.right);
            return n.key;
        }
    }
}
