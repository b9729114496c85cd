package latchtooearlyfixed;

import java.util.concurrent.CountDownLatch;

/**
 * LatchTooEarly with each worker storing its part before counting down: countDown happens-before
 * the return of await, so main always adds both parts.
 */
public class Main {
    static final int[] parts = new int[2];
    static final CountDownLatch done = new CountDownLatch(parts.length);

    public static void main(String[] args) throws InterruptedException {
        Thread[] workers = new Thread[parts.length];
        for (int i = 0; i < workers.length; i++) {
            final int me = i;
            workers[i] = new Thread(() -> {
                parts[me] = (me + 1) * (me + 1);
                done.countDown(); // after the store: await() then sees it
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
