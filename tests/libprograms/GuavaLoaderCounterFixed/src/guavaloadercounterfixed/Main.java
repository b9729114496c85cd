package guavaloadercounterfixed;

import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * GuavaLoaderCounter fixed: the loader counts its loads in an {@code AtomicInteger}, so two
 * loads of different keys at the same time are both counted.
 */
public class Main {
    static final AtomicInteger loads = new AtomicInteger();

    public static void main(String[] args) throws Exception {
        LoadingCache<Integer, String> cache = CacheBuilder.newBuilder()
                .maximumSize(10)
                .build(new CacheLoader<Integer, String>() {
                    @Override
                    public String load(Integer key) {
                        loads.incrementAndGet();
                        return "value-" + key;
                    }
                });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<String> first = pool.submit(() -> cache.get(1));
        Future<String> second = pool.submit(() -> cache.get(2));
        System.out.println(first.get() + ", " + second.get());
        pool.shutdown();
        if (loads.get() != 2) {
            throw new IllegalStateException("counted " + loads.get() + " loads of 2 keys");
        }
    }
}
