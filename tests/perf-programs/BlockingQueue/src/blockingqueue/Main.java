package blockingqueue;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Producers and consumers through a bounded ArrayBlockingQueue. Two producers each put ITEMS
 * numbered jobs and then one end-of-stream marker; two consumers take jobs until they see a
 * marker, do a little work per job and add up the results. Which consumer gets which job varies;
 * the total (a sum over all jobs) does not. Usage: {@code Main ITEMS} (per producer).
 */
public class Main {
    static final int PRODUCERS = 2;
    static final int CONSUMERS = 2;
    static final long END = -1;

    static final BlockingQueue<Long> queue = new ArrayBlockingQueue<>(64);
    static final long[] totals = new long[CONSUMERS];
    static final int[] counts = new int[CONSUMERS];

    public static void main(String[] args) throws InterruptedException {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        Thread[] threads = new Thread[PRODUCERS + CONSUMERS];
        for (int p = 0; p < PRODUCERS; p++) {
            final int me = p;
            threads[p] = new Thread(() -> produce(me, items), "producer-" + p);
        }
        for (int c = 0; c < CONSUMERS; c++) {
            final int me = c;
            threads[PRODUCERS + c] = new Thread(() -> consume(me), "consumer-" + c);
        }
        for (Thread t : threads) {
            t.start();
        }
        long total = 0;
        int count = 0;
        for (int c = 0; c < CONSUMERS; c++) {
            threads[PRODUCERS + c].join();
            total += totals[c];
            count += counts[c];
        }
        for (int p = 0; p < PRODUCERS; p++) {
            threads[p].join();
        }
        if (count != PRODUCERS * items) {
            throw new AssertionError("consumed " + count + " of " + PRODUCERS * items + " jobs");
        }
        System.out.println("jobs=" + count + " total=" + total);
    }

    static void produce(int id, int items) {
        try {
            for (int i = 0; i < items; i++) {
                queue.put((long) id * items + i);
            }
            // One marker per consumer in all: producer p ends consumer p.
            queue.put(END);
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts in this program", e);
        }
    }

    static void consume(int id) {
        try {
            for (long job = queue.take(); job != END; job = queue.take()) {
                totals[id] += work(job);
                counts[id]++;
            }
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts in this program", e);
        }
    }

    static long work(long job) {
        long h = job;
        for (int r = 0; r < 40; r++) {
            h = h * 6364136223846793005L + 1442695040888963407L;
        }
        return h >>> 40;
    }
}
