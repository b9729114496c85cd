package latchtooearly;

import java.util.concurrent.CountDownLatch;

/**
 * Two workers each compute a partial result; main awaits a CountDownLatch and adds the parts.
 * Each worker counts the latch down before it stores its part.
 *
 * <p>A failing interleaving exists: main awaits; worker 2 counts down and stores its part; worker
 * 1 counts down, which opens the latch, and main (outranking worker 1) runs at once and adds the
 * parts before worker 1 has stored its own, getting 4 instead of 5. Under RankChecker counting
 * main's taking over when it becomes enabled is free: (c, v, t) = (0, 0, 2) (main and worker 1);
 * CHESS counting needs one preemption of worker 1.
 */
public class Main {
    static final int[] parts = new int[2];
    static final CountDownLatch done = new CountDownLatch(parts.length);

    public static void main(String[] args) throws InterruptedException {
        Thread[] workers = new Thread[parts.length];
        for (int i = 0; i < workers.length; i++) {
            final int me = i;
            workers[i] = new Thread(() -> {
                done.countDown(); // BUG: announces the part before it exists
                parts[me] = (me + 1) * (me + 1);
            }, "worker-" + i);
            workers[i].start();
        }
        done.await();
        int sum = parts[0] + parts[1];
        for (Thread w : workers) {
            w.join();
        }
        if (sum != 5) {
            throw new AssertionError("sum of parts " + sum + ", expected 1 + 4 = 5");
        }
        System.out.println("sum = " + sum);
    }
}
