package executorracefixed;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * ExecutorRace with the tasks returning their parts through Futures: nothing is shared between
 * the pool threads, main adds the parts it gets from Future.get.
 */
public class Main {
    static long sumRange(int from, int to) {
        long part = 0;
        for (int i = from; i <= to; i++) {
            part += i;
        }
        return part;
    }

    public static void main(String[] args) throws InterruptedException, ExecutionException {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> parts = new ArrayList<>();
        Callable<Long> low = () -> sumRange(1, 4);
        Callable<Long> high = () -> sumRange(5, 8);
        parts.add(pool.submit(low));
        parts.add(pool.submit(high));
        long total = 0;
        for (Future<Long> part : parts) {
            total += part.get();
        }
        pool.shutdown();
        // A timed wait may time out under a controlled scheduler; waiting again keeps the
        // program correct whatever the timeouts.
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            System.out.println("still waiting for the pool");
        }
        if (total != 36) {
            throw new AssertionError("total " + total + ", expected 36");
        }
        System.out.println("total = " + total);
    }
}
