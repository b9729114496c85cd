package signup;

import java.util.Hashtable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Two sign-ups for the same e-mail on a pool; the check-then-put holds the Hashtable's lock. */
public class Main {
    public static void main(String[] args) throws Exception {
        Hashtable<String, String> accounts = new Hashtable<>();
        AtomicInteger welcomed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (String name : new String[] {"Alice", "Alicia"}) {
            pool.submit(() -> {
                synchronized (accounts) {
                    if (!accounts.containsKey("alice@example.com")) {
                        accounts.put("alice@example.com", name);
                        welcomed.incrementAndGet();
                    }
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        System.out.println("accounts: " + accounts + ", welcome mails: " + welcomed);
        if (welcomed.get() != accounts.size()) {
            throw new IllegalStateException(
                    welcomed + " welcome mails for " + accounts.size() + " account(s): " + accounts);
        }
    }
}
