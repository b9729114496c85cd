package initcycle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static class Unit {
        static final Unit METRE = new Unit("m", 1.0);

        final String symbol;
        final double scale;

        Unit(String symbol, double scale) {
            this.symbol = symbol;
            this.scale = scale;
        }

        // The table is looked up when a conversion is asked for, not while Unit initializes.
        double per(String other) {
            return scale / Conversions.TABLE.get(other);
        }
    }

    static class Conversions {
        static final Map<String, Double> TABLE = new HashMap<>();

        static {
            TABLE.put("km", 1000.0);
            TABLE.put("cm", 0.01);
            TABLE.put(Unit.METRE.symbol, Unit.METRE.scale);
        }
    }

    public static void main(String[] args) throws Exception {
        AtomicInteger answers = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() -> {
            System.out.println("base unit: " + Unit.METRE.symbol);
            answers.incrementAndGet();
        }));
        threads.add(new Thread(() -> {
            System.out.println("1 km = " + Conversions.TABLE.get("km") + " m");
            answers.incrementAndGet();
        }));
        threads.add(new Thread(() -> {
            System.out.println("1 m = " + Unit.METRE.per("cm") + " cm");
            answers.incrementAndGet();
        }));
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (answers.get() != 3) {
            throw new AssertionError("only " + answers.get() + " answers");
        }
        System.out.println("done");
    }
}
