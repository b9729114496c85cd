package wordcountcomputeifabsent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Word count over lines on a pool: the map is concurrent, the count update is not. */
public class Main {
    static class Count {
        int n;
    }

    public static void main(String[] args) throws Exception {
        String[] lines = {"to be or", "not to be"};
        Map<String, Count> counts = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> done = new ArrayList<>();
        for (String line : lines) {
            done.add(pool.submit(() -> {
                for (String word : line.split(" ")) {
                    counts.computeIfAbsent(word, w -> new Count()).n++;
                }
            }));
        }
        for (Future<?> f : done) f.get();
        pool.shutdown();
        int be = counts.get("be").n;
        System.out.println("be: " + be);
        if (be != 2) throw new AssertionError("'be' counted " + be + " times, expected 2");
    }
}
