package clinitworkersfixed;

import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * ClinitWorkers fixed: each hit is one synchronized step. The pool whose workers the static
 * initializer prestarts then runs a hit per worker, so its workers (controlled threads) take,
 * run and finish tasks.
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

        static synchronized void hit() {
            hits = hits + 1;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread[] counters = Counter.COUNTERS;
        Future<?> a = Counter.POOL.submit(Counter::hit);
        Future<?> b = Counter.POOL.submit(Counter::hit);
        for (Thread t : counters) {
            t.join();
        }
        a.get();
        b.get();
        Counter.POOL.shutdown(); // the idle workers end
        int hits;
        synchronized (Counter.class) {
            hits = Counter.hits;
        }
        if (hits != 4) {
            throw new AssertionError(hits + " hits counted by 4 tasks");
        }
        System.out.println("hits " + hits);
    }
}
