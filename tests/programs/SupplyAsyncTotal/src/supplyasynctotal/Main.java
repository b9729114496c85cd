package supplyasynctotal;

import java.util.concurrent.CompletableFuture;

/** Prices fetched with supplyAsync (the common pool) and added to a shared total. */
public class Main {
    static long total;

    static long price(String item) {
        long p = item.length() * 10L;
        total += p;
        return p;
    }

    public static void main(String[] args) {
        CompletableFuture<Long> tea = CompletableFuture.supplyAsync(() -> price("tea"));
        CompletableFuture<Long> cake = CompletableFuture.supplyAsync(() -> price("cake"));
        long both = tea.thenCombine(cake, Long::sum).join();
        System.out.println("total " + total + ", sum " + both);
        if (total != both) throw new IllegalStateException("total " + total + " but the prices add up to " + both);
    }
}
