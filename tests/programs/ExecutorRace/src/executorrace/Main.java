package executorrace;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Two tasks submitted to a two-thread pool each add the sum of their half of 1..8 to a shared
 * total with an unsynchronized {@code total += part}; main shuts the pool down, awaits its
 * termination and checks the total.
 *
 * <p>A failing interleaving exists: pool thread 1 reads total = 0 and is preempted before its
 * write; pool thread 2 reads 0, writes its part and finishes its task; pool thread 1 writes its own
 * part over it. One preemption, at {@code total}, between the two pool threads:
 * (c, v, t) = (1, 1, 2).
 */
public class Main {
    static long total;

    static void addRange(int from, int to) {
        long part = 0;
        for (int i = from; i <= to; i++) {
            part += i;
        }
        total += part; // BUG: read-modify-write shared by two pool threads
    }

    public static void main(String[] args) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> addRange(1, 4));
        pool.submit(() -> addRange(5, 8));
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
