package readwritelocksnapshot;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A quote (bid and ask) in a HashMap behind a ReentrantReadWriteLock. The writer reprices both
 * in one write-locked section; the reader reads the bid and the ask in two read-locked
 * sections, so the writer may reprice in between and the reader sees a spread that never was.
 * The map is JDK code (no scheduling points inside) and the writer only tries the lock (it skips
 * the refresh when a reader holds it), so the only failing schedules run the whole write-locked
 * section between the reader's two sections without any blocking: the two threads meet only in
 * lock operations, and a strategy that prunes by happens-before finds the bug only when the read
 * lock's and the write lock's operations conflict. (c, v, t) = (1, 1, 2).
 */
public class Main {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Integer> quote = new HashMap<>();

    Main() {
        quote.put("bid", 100);
        quote.put("ask", 100);
    }

    /** A best-effort refresh: it reprices only if it gets the write lock at once. */
    void reprice() {
        if (!lock.writeLock().tryLock()) {
            return;
        }
        try {
            quote.put("bid", 200);
            quote.put("ask", 200);
        } finally {
            lock.writeLock().unlock();
        }
    }

    int spread() {
        int bid;
        int ask;
        lock.readLock().lock();
        try {
            bid = quote.get("bid");
        } finally {
            lock.readLock().unlock();
        }
        // BUG: the writer may reprice here, between the two read-locked sections.
        lock.readLock().lock();
        try {
            ask = quote.get("ask");
        } finally {
            lock.readLock().unlock();
        }
        return ask - bid;
    }

    public static void main(String[] args) throws InterruptedException {
        Main m = new Main();
        int[] spread = new int[1];
        Thread reader = new Thread(() -> spread[0] = m.spread(), "reader");
        Thread writer = new Thread(m::reprice, "writer");
        reader.start();
        writer.start();
        reader.join();
        writer.join();
        if (spread[0] != 0) {
            throw new AssertionError("spread " + spread[0] + " from a torn quote");
        }
        System.out.println("spread " + spread[0]);
    }
}
