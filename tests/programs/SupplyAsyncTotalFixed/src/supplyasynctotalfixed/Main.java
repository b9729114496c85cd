package supplyasynctotalfixed;

import java.util.concurrent.CompletableFuture;

/** Prices fetched with supplyAsync (the common pool) and added to a shared atomic total. */
public class Main {
    static final java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();

    static long price(String item) {
        long p = item.length() * 10L;
        total.addAndGet(p);
        return p;
    }

    public static void main(String[] args) {
        CompletableFuture<Long> tea = CompletableFuture.supplyAsync(() -> price("tea"));
        CompletableFuture<Long> cake = CompletableFuture.supplyAsync(() -> price("cake"));
        long both = tea.thenCombine(cake, Long::sum).join();
        System.out.println("total " + total + ", sum " + both);
        if (total.get() != both) throw new IllegalStateException("total " + total + " but the prices add up to " + both);
    }
}
