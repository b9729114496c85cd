package sessions;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A login service caches one session token per user in a ConcurrentHashMap. Logging in looks
 * the token up and issues one when there is none, in one atomic call: every login of a user
 * gets the one token.
 */
public class Main {
    static final List<String> issued = Collections.synchronizedList(new ArrayList<>());

    static String login(Map<String, String> cache, String user) {
        return cache.computeIfAbsent(user, u -> {
            String token = "token-" + u;
            issued.add(token);
            return token;
        });
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> cache = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<String> a = pool.submit(() -> login(cache, "ada"));
        Future<String> b = pool.submit(() -> login(cache, "ada"));
        System.out.println("logged in: " + a.get() + ", " + b.get());
        pool.shutdown();
        if (issued.size() != 1) {
            throw new IllegalStateException(issued.size() + " tokens issued for one user");
        }
    }
}
