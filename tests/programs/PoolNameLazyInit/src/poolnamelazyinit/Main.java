package poolnamelazyinit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Two tasks on a fixed pool of two threads register their worker's name in a registry that the
 * first caller creates. The buggy getter checks for null without a lock: both tasks can see null
 * and create a registry each, and the registration in the overwritten one is lost. (c, v, t) =
 * (1, 1, 2). Main's message names the pool threads (pool-1-thread-1 in a fresh JVM).
 */
public class Main {
    static class Registry {
        final String creator;
        final List<String> names = new ArrayList<>();

        Registry(String creator) {
            this.creator = creator;
        }

        synchronized void add(String name) {
            names.add(name);
        }

        synchronized List<String> names() {
            return new ArrayList<>(names);
        }
    }

    static Registry registry;

    static Registry registry() {
        if (registry == null) {
            registry = new Registry(Thread.currentThread().getName());
        }
        return registry;
    }

    public static void main(String[] args) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> registry().add(Thread.currentThread().getName()));
        }
        pool.shutdown();
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            System.out.println("still waiting for the pool");
        }
        List<String> names = registry.names();
        if (names.size() != 2) {
            throw new IllegalStateException("registry made by " + registry.creator + " holds only "
                    + names + "; a registration was lost");
        }
        System.out.println("registered " + names.size() + " pool threads");
    }
}
