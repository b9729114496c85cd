package spinyieldready;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Main yields in a loop until a pool task has published its result through a volatile flag. */
public class Main {
    static volatile boolean ready;
    static long result;

    public static void main(String[] args) throws InterruptedException {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pool.execute(() -> {
            long sum = 0;
            for (int i = 1; i <= 100; i++) {
                sum += i;
            }
            result = sum;
            ready = true;
        });
        while (!ready) Thread.yield();
        if (result != 5050) {
            throw new IllegalStateException("result " + result);
        }
        pool.shutdown();
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            System.out.println("still waiting for the pool");
        }
        System.out.println("result " + result);
    }
}
