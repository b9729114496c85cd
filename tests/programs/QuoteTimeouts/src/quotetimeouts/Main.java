package quotetimeouts;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Fetches quotes with deadlines and counts the answers. */
public class Main {
    static int answered;

    static double fetch(String symbol) {
        try {
            Thread.sleep(symbol.length() * 20L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return symbol.length() * 1.5;
    }

    public static void main(String[] args) {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<CompletableFuture<Double>> quotes = new ArrayList<>();
        for (String symbol : List.of("AB", "CDEF", "GHIJKL")) {
            CompletableFuture<Double> quote = CompletableFuture
                    .supplyAsync(() -> fetch(symbol), pool)
                    .completeOnTimeout(-1.0, 100, TimeUnit.MILLISECONDS);
            quotes.add(quote.thenApply(price -> {
                answered++;
                return price;
            }));
        }
        CompletableFuture<Void> all = CompletableFuture
                .allOf(quotes.toArray(new CompletableFuture[0]))
                .orTimeout(5, TimeUnit.SECONDS);
        all.join();
        pool.shutdownNow();
        System.out.println(answered + " quotes answered");
        if (answered != quotes.size()) {
            throw new IllegalStateException(quotes.size() + " quotes but " + answered + " answered");
        }
    }
}
