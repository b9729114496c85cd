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
 * A site crawler on a pool of two: every page's task submits its unvisited links as new tasks,
 * and {@code pending} counts the pages queued but not yet crawled; main shuts the pool down
 * when it reaches 0.
 *
 * <p>The bug: a task counts itself done before it submits its links. Crawling "/" takes
 * {@code pending} from 1 to 0 and wakes main while "/a" and "/b" are still to be submitted;
 * if main runs then, it shuts the pool down and the task's {@code execute} throws a
 * {@code RejectedExecutionException} (uncaught in the pool thread) naming the rejected task,
 * a lambda whose class name the JVM numbers and places anew in every run. Failing
 * interleaving: t1 (the pool thread) decrements and notifies, leaves the monitor; main, just
 * enabled, reacquires it, sees 0 and calls {@code shutdown}; t1 then submits "/a". Bounds:
 * c = 0 with RankChecker's counting (the switch is to main as it becomes enabled; 1 with
 * CHESS's, preempting t1 at {@code pending}), so v = 0, and t = 2.
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
        if (pending.decrementAndGet() == 0) {
            synchronized (pending) {
                pending.notifyAll();
            }
        }
        for (String link : links) {
            if (visited.add(link)) {
                pending.incrementAndGet();
                pool.execute(() -> crawl(link));
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
