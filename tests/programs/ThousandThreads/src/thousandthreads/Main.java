package thousandthreads;

/**
 * Hostile but correct: main starts 1,000 threads that each add their number to a total under a
 * lock, joins them all and checks the sum. Tests that rankcheck copes with many threads (thread
 * ids, priorities, the model's tables) without failing or slowing to a crawl.
 */
public class Main {
    static final int THREADS = 1000;
    static final Object lock = new Object();
    static long total;

    public static void main(String[] args) throws InterruptedException {
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            final int me = i;
            threads[i] = new Thread(() -> {
                synchronized (lock) {
                    total += me;
                }
            }, "adder-" + i);
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long expected = (long) THREADS * (THREADS - 1) / 2;
        if (total != expected) {
            throw new AssertionError("total " + total + ", expected " + expected);
        }
        System.out.println("total = " + total);
    }
}
