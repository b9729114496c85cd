package threadnamemapkeyfixed;

import java.util.HashMap;
import java.util.Map;

/** ThreadNameMapKey with every use of the map under the map's own lock. */
public class Main {
    static Map<String, Integer> totals = new HashMap<>();

    static class Adder implements Runnable {
        final int part;

        Adder(int part) {
            this.part = part;
        }

        @Override
        public void run() {
            String me = Thread.currentThread().getName();
            Map<String, Integer> map = totals;
            synchronized (map) {
                Integer sum = map.get("sum");
                map.put("sum", (sum == null ? 0 : sum) + part);
                map.put(me, part);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(new Adder(3));
        Thread b = new Thread(new Adder(4));
        a.start();
        b.start();
        a.join();
        b.join();
        if (totals.get("sum") != 7) {
            throw new IllegalStateException("sum lost a part: " + new java.util.TreeMap<>(totals));
        }
        System.out.println("totals " + new java.util.TreeMap<>(totals));
    }
}
