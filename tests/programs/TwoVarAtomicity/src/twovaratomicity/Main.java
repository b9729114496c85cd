package twovaratomicity;

/**
 * A tiny append-only list keeps its length in {@code size} and its elements in {@code items}; the
 * invariant spans both variables: every slot below {@code size} holds an element. The writer
 * appends by bumping {@code size} first and storing the element second; the reader reads the last
 * element.
 *
 * <p>A failing interleaving exists: the writer sets size = 1 and is preempted before it stores
 * items[0]; the reader reads size 1 and items[0] == null and throws. The invariant involves two
 * variables but one preemption at one of them suffices (at the writer's re-read of size, or before
 * its store into items): (c, v, t) = (1, 1, 2).
 */
public class Main {
    static final String[] items = new String[4];
    static int size;

    public static void main(String[] args) throws InterruptedException {
        Thread writer = new Thread(() -> append("first"), "writer");
        Thread reader = new Thread(Main::readLast, "reader");
        writer.start();
        reader.start();
        writer.join();
        reader.join();
        System.out.println("size = " + size);
    }

    static void append(String value) {
        size = size + 1; // publishes the new length ...
        items[size - 1] = value; // ... before the element it counts
    }

    static void readLast() {
        int n = size;
        if (n > 0 && items[n - 1] == null) {
            throw new AssertionError("size is " + n + " but slot " + (n - 1) + " is empty");
        }
    }
}
