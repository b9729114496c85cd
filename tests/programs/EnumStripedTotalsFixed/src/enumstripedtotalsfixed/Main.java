package enumstripedtotalsfixed;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/** Sales by region, striped by region; the grand total is an AtomicLong. */
public class Main {
    enum Region { NORTH, SOUTH, EAST, WEST }

    static final Object[] stripes = {new Object(), new Object()};
    static final long[] byRegion = new long[Region.values().length];
    static final AtomicLong total = new AtomicLong();

    static Object stripeOf(Region region) {
        return stripes[(region.hashCode() & 0x7fffffff) % stripes.length];
    }

    static void record(Region region, long amount) {
        synchronized (stripeOf(region)) {
            byRegion[region.ordinal()] += amount;
            total.addAndGet(amount);
        }
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> sales = new ArrayList<>();
        int amount = 10;
        for (Region region : Region.values()) {
            int sale = amount;
            sales.add(pool.submit(() -> record(region, sale)));
            amount += 10;
        }
        for (Future<?> sale : sales) {
            sale.get();
        }
        pool.shutdown();
        long sum = 0;
        for (long v : byRegion) {
            sum += v;
        }
        System.out.println("total " + total);
        if (sum != total.get()) {
            throw new IllegalStateException("regions sum to " + sum + " but the total is " + total);
        }
    }
}
