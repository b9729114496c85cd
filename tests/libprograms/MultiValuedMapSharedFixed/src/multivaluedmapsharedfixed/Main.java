package multivaluedmapsharedfixed;

import java.util.Collection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.commons.collections4.MultiValuedMap;
import org.apache.commons.collections4.multimap.ArrayListValuedHashMap;

public class Main {
    static final MultiValuedMap<String, String> tags = new ArrayListValuedHashMap<>();

    static void tag(String order, String tag) {
        synchronized (tags) {
            tags.put(order, tag);
        }
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<?> a = pool.submit(() -> tag("order-7", "gift"));
        Future<?> b = pool.submit(() -> tag("order-7", "express"));
        a.get();
        b.get();
        pool.shutdown();
        Collection<String> got = tags.get("order-7");
        if (got.size() != 2) {
            throw new IllegalStateException("order-7 lost a tag: " + got);
        }
        System.out.println("order-7 " + got.size() + " tags");
    }
}
