package sharedhashmapputs;

import java.util.HashMap;
import java.util.Map;

/** Two threads fill one plain HashMap with different keys; main expects every entry. */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        Map<String, Integer> stock = new HashMap<>();
        Thread a = new Thread(() -> {
            for (int i = 0; i < 4; i++) stock.put("apple-" + i, i);
        });
        Thread b = new Thread(() -> {
            for (int i = 0; i < 4; i++) stock.put("pear-" + i, i);
        });
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(stock.size() + " entries");
        if (stock.size() != 8) {
            throw new IllegalStateException("expected 8 entries, map has " + stock.size() + ": " + stock);
        }
    }
}
