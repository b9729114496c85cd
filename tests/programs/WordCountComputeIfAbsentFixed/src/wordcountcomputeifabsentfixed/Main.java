package wordcountcomputeifabsentfixed;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/** Word count over lines on a pool: the map is concurrent, so is the LongAdder it returns. */
public class Main {
    public static void main(String[] args) throws Exception {
        String[] lines = {"to be or", "not to be"};
        Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> done = new ArrayList<>();
        for (String line : lines) {
            done.add(pool.submit(() -> {
                for (String word : line.split(" ")) {
                    counts.computeIfAbsent(word, w -> new LongAdder()).increment();
                }
            }));
        }
        for (Future<?> f : done) f.get();
        pool.shutdown();
        int be = counts.get("be").intValue();
        System.out.println("be: " + be);
        if (be != 2) throw new AssertionError("'be' counted " + be + " times, expected 2");
    }
}
