package handlestripedleases;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Hands out lease handles; the tracker's lock is striped by handle. */
public class Main {
    static final Object[] locks = {new Object(), new Object()};
    static final Map<Object, String> owners = new ConcurrentHashMap<>();
    static int open;

    static Object lockFor(Object handle) {
        return locks[(handle.hashCode() & 0x7fffffff) % locks.length];
    }

    static Object lease(String who) {
        Object handle = new Object();
        synchronized (lockFor(handle)) {
            owners.put(handle, who);
            open++;
        }
        return handle;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(() -> {
            lease("a");
            lease("a");
        });
        Thread b = new Thread(() -> {
            lease("b");
            lease("b");
        });
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(owners.size() + " leases");
        if (open != owners.size()) {
            throw new IllegalStateException(
                    owners.size() + " leases are held but the tracker counts " + open);
        }
    }
}
