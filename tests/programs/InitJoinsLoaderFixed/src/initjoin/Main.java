package initjoin;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static String normalize(String s) {
        return s.trim().toLowerCase();
    }

    // Not a lambda inside Catalog: its body would be a static method of Catalog, which the
    // loader thread could not call before Catalog's initialization (which waits for it) ended.
    static class Loader implements Runnable {
        private final List<String> into;

        Loader(List<String> into) {
            this.into = into;
        }

        @Override
        public void run() {
            for (String raw : new String[] {" Apple", "pear ", " Plum "}) {
                into.add(normalize(raw));
            }
        }
    }

    static class Catalog {
        static final List<String> ITEMS;

        static {
            List<String> loaded = new ArrayList<>();
            Thread loader = new Thread(new Loader(loaded));
            loader.start();
            try {
                loader.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            ITEMS = Collections.unmodifiableList(loaded);
        }
    }

    static class Region implements Callable<String> {
        private final String raw;

        Region(String raw) {
            this.raw = raw;
        }

        @Override
        public String call() {
            return normalize(raw);
        }
    }

    static class Settings {
        static final String REGION;

        static {
            ExecutorService pool = Executors.newFixedThreadPool(1);
            try {
                REGION = pool.submit(new Region(" EU-West ")).get();
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
            } finally {
                pool.shutdown();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        AtomicInteger words = new AtomicInteger();
        Thread counter = new Thread(() -> {
            for (String w : "the quick brown fox".split(" ")) {
                words.incrementAndGet();
            }
        });
        counter.start();
        System.out.println("catalog: " + Catalog.ITEMS + ", region: " + Settings.REGION);
        counter.join();
        if (Catalog.ITEMS.size() != 3 || !Settings.REGION.equals("eu-west") || words.get() != 4) {
            throw new IllegalStateException(Catalog.ITEMS + " " + Settings.REGION + " " + words);
        }
    }
}
