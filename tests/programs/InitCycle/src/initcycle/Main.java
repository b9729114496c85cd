package initcycle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Main {
    static class Unit {
        static final Unit METRE = new Unit("m", 1.0);
        // Every unit can convert: the table is read while Unit initializes.
        static final Map<String, Double> FACTORS = Conversions.TABLE;

        final String symbol;
        final double scale;

        Unit(String symbol, double scale) {
            this.symbol = symbol;
            this.scale = scale;
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
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() -> System.out.println("base unit: " + Unit.METRE.symbol)));
        threads.add(new Thread(() -> System.out.println("1 km = " + Conversions.TABLE.get("km") + " m")));
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("done");
    }
}
