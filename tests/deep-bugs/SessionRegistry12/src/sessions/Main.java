package sessions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static final AtomicInteger CREATED = new AtomicInteger();

    static final class Session {
        final String user;

        Session(String user) {
            this.user = user;
            CREATED.incrementAndGet();
        }
    }

    private final Map<String, Session> sessions = new HashMap<>();

    Session sessionFor(String user) {
        if (!sessions.containsKey(user)) {
            sessions.put(user, new Session(user));
        }
        return sessions.get(user);
    }

    public static void main(String[] args) throws InterruptedException {
        Main registry = new Main();
        List<Thread> requests = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Thread t = new Thread(() -> registry.sessionFor("alice"));
            requests.add(t);
            t.start();
        }
        for (Thread t : requests) {
            t.join();
        }
        if (CREATED.get() != 1) {
            throw new AssertionError(CREATED.get() + " sessions created for one user");
        }
        System.out.println("one session");
    }
}
