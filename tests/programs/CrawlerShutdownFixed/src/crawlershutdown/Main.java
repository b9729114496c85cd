package crawlershutdown;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * CrawlerShutdown with the count kept right: a task counts its links in (and submits them)
 * before it counts itself out, so {@code pending} reaches 0 only when no task is left to
 * submit anything, and main shuts down an idle pool.
 */
public class Main {
    static final Map<String, List<String>> LINKS = Map.of(
            "/", List.of("/a", "/b"),
            "/a", List.of("/c"),
            "/b", List.of("/c", "/d"),
            "/c", List.of(),
            "/d", List.of("/a"));

    static final Set<String> visited = ConcurrentHashMap.newKeySet();
    static final AtomicInteger pending = new AtomicInteger();
    static ExecutorService pool;

    static void crawl(String page) {
        List<String> links = LINKS.getOrDefault(page, List.of());
        for (String link : links) {
            if (visited.add(link)) {
                pending.incrementAndGet();
                pool.execute(() -> crawl(link));
            }
        }
        if (pending.decrementAndGet() == 0) {
            synchronized (pending) {
                pending.notifyAll();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        pool = Executors.newFixedThreadPool(2);
        visited.add("/");
        pending.incrementAndGet();
        pool.execute(() -> crawl("/"));
        synchronized (pending) {
            while (pending.get() > 0) {
                pending.wait();
            }
        }
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("crawled " + visited.size() + " pages");
    }
}
