package guavacachecheckthenact;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static final AtomicInteger opened = new AtomicInteger();

    static final class Session {
        final int number = opened.incrementAndGet();
    }

    static final Cache<String, Session> sessions =
            CacheBuilder.newBuilder().maximumSize(100).build();

    static Session sessionFor(String user) {
        Session s = sessions.getIfPresent(user);
        if (s == null) {
            s = new Session();
            sessions.put(user, s);
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<Session> a = pool.submit(() -> sessionFor("alice"));
        Future<Session> b = pool.submit(() -> sessionFor("alice"));
        Session first = a.get();
        Session second = b.get();
        pool.shutdown();
        if (first != second) {
            throw new IllegalStateException("two sessions for alice: #" + first.number
                    + " and #" + second.number + " (" + opened.get() + " opened)");
        }
        System.out.println("alice has session #" + first.number);
    }
}
