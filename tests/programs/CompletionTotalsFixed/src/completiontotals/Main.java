package completiontotals;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/** Sums word lengths computed on a pool, taking results as they complete; the total is atomic. */
public class Main {
    static final AtomicLong total = new AtomicLong();

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        CompletionService<Integer> done = new ExecutorCompletionService<>(pool);
        BlockingQueue<String> log = new LinkedBlockingQueue<>();
        List<String> words = List.of("alpha", "beta", "gamma");
        for (String word : words) {
            done.submit(() -> {
                log.add(word);
                total.addAndGet(word.length());
                return word.length();
            });
        }
        int sum = 0;
        for (int i = 0; i < words.size(); i++) {
            sum += done.take().get();
            System.out.println("after " + (i + 1) + " results, log " + log);
        }
        pool.shutdown();
        System.out.println("sum " + sum + ", total " + total);
        if (sum != total.get()) {
            throw new IllegalStateException("results sum to " + sum + " but the total is " + total);
        }
    }
}
