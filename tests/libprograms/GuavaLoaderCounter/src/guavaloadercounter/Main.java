package guavaloadercounter;

import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Two pool tasks ask a guava LoadingCache for two different keys; its loader counts the loads
 * in a plain {@code int}. Guava loads different keys at the same time, each in the asking
 * thread, so the count is a lost update: main checks that it says 2.
 */
public class Main {
    static int loads;

    public static void main(String[] args) throws Exception {
        LoadingCache<Integer, String> cache = CacheBuilder.newBuilder()
                .maximumSize(10)
                .build(new CacheLoader<Integer, String>() {
                    @Override
                    public String load(Integer key) {
                        loads++;
                        return "value-" + key;
                    }
                });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<String> first = pool.submit(() -> cache.get(1));
        Future<String> second = pool.submit(() -> cache.get(2));
        System.out.println(first.get() + ", " + second.get());
        pool.shutdown();
        if (loads != 2) {
            throw new IllegalStateException("counted " + loads + " loads of 2 keys");
        }
    }
}
