package mirror;

import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Two replicas of a settings table check, each from its own side, whether they agree. */
public class Main {
    static boolean agree(Map<String, String> mine, Map<String, String> theirs) {
        // One lock for every comparison: no two compare in opposite orders at once.
        synchronized (Main.class) {
            return mine.equals(theirs);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> primary = new Hashtable<>();
        Map<String, String> replica = new Hashtable<>();
        for (String key : new String[] {"host", "port", "timeout"}) {
            primary.put(key, key.toUpperCase());
            replica.put(key, key.toUpperCase());
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<Boolean> fromPrimary = pool.submit(() -> agree(primary, replica));
        Future<Boolean> fromReplica = pool.submit(() -> agree(replica, primary));
        System.out.println("in sync: " + fromPrimary.get() + " " + fromReplica.get());
        pool.shutdown();
    }
}
