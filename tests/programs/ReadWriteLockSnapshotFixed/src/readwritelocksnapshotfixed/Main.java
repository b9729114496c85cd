package readwritelocksnapshotfixed;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * ReadWriteLockSnapshot fixed: the reader reads the bid and the ask in one read-locked section,
 * so it sees the quote either before or after the writer's repricing, never half of each.
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
        lock.readLock().lock();
        try {
            return quote.get("ask") - quote.get("bid");
        } finally {
            lock.readLock().unlock();
        }
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
