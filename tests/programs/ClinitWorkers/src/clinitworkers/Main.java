package clinitworkers;

import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * A class whose static initializer starts two counting threads and prestarts a pool's workers.
 * Each thread adds one hit with a read then a write: one thread reads, the other reads the same
 * value and writes, the first writes the same sum again, and a hit is lost. (c, v, t) = (1, 1, 2).
 *
 * <p>Code run by a static initializer has no scheduling points (a thread preempted there would
 * leave every other thread that touches the class blocked in the JVM), but the threads it starts
 * must still be controlled: they are started without a thread switch.
 */
public class Main {
    static class Counter {
        static int hits;
        static final Thread[] COUNTERS = new Thread[2];
        static final ThreadPoolExecutor POOL =
                (ThreadPoolExecutor) Executors.newFixedThreadPool(2);

        static {
            for (int i = 0; i < COUNTERS.length; i++) {
                COUNTERS[i] = new Thread(Counter::hit, "counter-" + i);
                COUNTERS[i].start();
            }
            POOL.prestartAllCoreThreads();
        }

        static void hit() {
            int seen = hits;
            hits = seen + 1; // BUG: not atomic with the read
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] counters = Counter.COUNTERS;
        for (Thread t : counters) {
            t.join();
        }
        Counter.POOL.shutdown(); // the idle workers end
        if (Counter.hits != 2) {
            throw new AssertionError(Counter.hits + " hits counted by 2 threads");
        }
        System.out.println("hits " + Counter.hits);
    }
}
