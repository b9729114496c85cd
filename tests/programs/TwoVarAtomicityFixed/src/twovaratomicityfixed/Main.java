package twovaratomicityfixed;

/**
 * TwoVarAtomicity with append and readLast synchronized on one lock: the reader sees either the
 * empty list or the list with its element stored.
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

    static synchronized void append(String value) {
        size = size + 1;
        items[size - 1] = value;
    }

    static synchronized void readLast() {
        int n = size;
        if (n > 0 && items[n - 1] == null) {
            throw new AssertionError("size is " + n + " but slot " + (n - 1) + " is empty");
        }
    }
}
