package gather;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public class Main {
    public static void main(String[] args) throws InterruptedException {
        int tasks = 100;
        ExecutorService pool = Executors.newFixedThreadPool(tasks);
        Map<Integer, Integer> squares = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            final int n = i;
            pool.execute(() -> {
                squares.put(n, n * n);
                done.countDown();
            });
        }
        done.await();
        pool.shutdown();
        if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            throw new AssertionError("pool did not stop");
        }
        long sum = 0;
        for (int v : squares.values()) {
            sum += v;
        }
        if (squares.size() != tasks || sum != 328350) {
            throw new AssertionError("gathered " + squares.size() + " squares, sum " + sum);
        }
        System.out.println("sum " + sum);
    }
}
