package localcollections;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Two tasks on a pool, each building its own HashMap, ArrayList and StringBuilder (nothing
 * shared until the results are joined): the cost of scheduling points inside the JDK's
 * collections for collections that never leave their thread.
 */
public class Main {
    public static void main(String[] args) throws Exception {
        int size = Integer.parseInt(args[0]);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> parts = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int base = t * size;
            parts.add(pool.submit(() -> {
                Map<Integer, String> names = new HashMap<>();
                List<Integer> order = new ArrayList<>();
                StringBuilder digits = new StringBuilder();
                for (int i = 0; i < size; i++) {
                    names.put(base + i, "n" + (i % 100));
                    order.add(i);
                    digits.append(i % 10);
                }
                long sum = 0;
                for (int i : order) sum += names.get(base + i).length() + digits.charAt(i) - '0';
                return sum;
            }));
        }
        long total = 0;
        for (Future<Long> f : parts) total += f.get();
        pool.shutdown();
        System.out.println(total);
    }
}
