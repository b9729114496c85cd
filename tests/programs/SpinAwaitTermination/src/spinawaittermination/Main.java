package spinawaittermination;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The usual shutdown idiom: submit, shut down, and wait for termination in a loop that only
 * prints when a timed wait runs out. Correct: the pool's worker runs the task and ends, so a
 * fair scheduler ends the loop.
 */
public class Main {
    static volatile int result;

    public static void main(String[] args) throws InterruptedException {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pool.execute(() -> result = 42);
        pool.shutdown();
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            System.out.println("still waiting for the pool");
        }
        if (result != 42) {
            throw new IllegalStateException("result " + result);
        }
        System.out.println("result " + result);
    }
}
