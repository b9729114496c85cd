package reporter;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Counts words on a pool while a reporter prints the running totals. */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        Map<String, Integer> counts = Collections.synchronizedMap(new HashMap<>());
        Thread reporter = new Thread(() -> {
            try {
                while (true) {
                    int blocked = 0;
                    for (Thread t : Thread.getAllStackTraces().keySet()) {
                        if (t.getState() == Thread.State.BLOCKED) {
                            blocked++;
                        }
                    }
                    Map<String, Integer> snapshot;
                    synchronized (counts) {
                        snapshot = new TreeMap<>(counts);
                    }
                    System.out.println("so far: " + snapshot + ", " + blocked + " blocked");
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                // asked to stop
            }
        });
        reporter.setDaemon(true);
        reporter.start();

        String[] lines = {"a b a", "b c", "a c c"};
        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (String line : lines) {
            pool.submit(() -> {
                for (String word : line.split(" ")) {
                    counts.merge(word, 1, Integer::sum);
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the pool did not finish");
        }
        int total;
        synchronized (counts) {
            total = counts.values().stream().mapToInt(Integer::intValue).sum();
            System.out.println("total " + total + " in " + new TreeMap<>(counts));
        }
        if (total != 8) {
            throw new AssertionError("lost a word: " + total);
        }
    }
}
