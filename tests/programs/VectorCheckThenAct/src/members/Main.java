package members;

import java.util.Vector;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Two sign-ups of the same user on a pool; the Vector is thread-safe, the check-then-add is not. */
public class Main {
    public static void main(String[] args) throws Exception {
        Vector<String> members = new Vector<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (int i = 0; i < 2; i++) {
            pool.submit(() -> {
                if (!members.contains("alice")) {
                    members.add("alice");
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        System.out.println("members: " + members);
        if (members.size() != 1) {
            throw new IllegalStateException("duplicate member: " + members);
        }
    }
}
