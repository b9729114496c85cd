package loadingcachesingleload;

import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static final AtomicInteger loads = new AtomicInteger();

    static final class Config {
        final String source;

        Config(String source) {
            this.source = source;
        }
    }

    public static void main(String[] args) throws Exception {
        LoadingCache<String, Config> configs = CacheBuilder.newBuilder()
                .build(new CacheLoader<String, Config>() {
                    @Override
                    public Config load(String key) {
                        loads.incrementAndGet();
                        return new Config(key + ".properties");
                    }
                });
        Config[] seen = new Config[3];
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < seen.length; i++) {
            int slot = i;
            Thread t = new Thread(() -> seen[slot] = configs.getUnchecked("app"));
            readers.add(t);
            t.start();
        }
        for (Thread t : readers) {
            t.join();
        }
        if (loads.get() != 1 || seen[0] != seen[1] || seen[1] != seen[2]) {
            throw new IllegalStateException(loads.get() + " loads");
        }
        System.out.println("loaded once: " + seen[0].source);
    }
}
