package threadnamemapkey;

import java.util.HashMap;
import java.util.Map;

/**
 * Two unnamed workers put their part into a shared {@code HashMap} under their own thread name
 * and add it to the entry "sum". Each worker locks itself, not the map: the lock guards nothing.
 *
 * <p>Bug: get("sum") then put("sum", old + part) under two different locks. Worker 1 reads sum
 * 0 and is preempted at its next access of {@code totals}; worker 2 reads 0, puts its part;
 * worker 1 puts its own part over it. (c, v, t) = (1, 1, 2). The failure message prints the
 * map, whose keys are the workers' default names.
 */
public class Main {
    static Map<String, Integer> totals = new HashMap<>();

    static class Adder implements Runnable {
        final int part;

        Adder(int part) {
            this.part = part;
        }

        @Override
        public void run() {
            String me = Thread.currentThread().getName();
            synchronized (this) { // BUG: each worker has its own lock
                Integer sum = totals.get("sum");
                totals.put("sum", (sum == null ? 0 : sum) + part);
                totals.put(me, part);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(new Adder(3));
        Thread b = new Thread(new Adder(4));
        a.start();
        b.start();
        a.join();
        b.join();
        if (totals.get("sum") != 7) {
            throw new IllegalStateException("sum lost a part: " + new java.util.TreeMap<>(totals));
        }
        System.out.println("totals " + new java.util.TreeMap<>(totals));
    }
}
