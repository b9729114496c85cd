package syncmapcheckthenputfixed;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * SyncMapCheckThenPut fixed: the check and the put happen in one {@code putIfAbsent}, atomic
 * under the map's lock.
 */
public class Main {
    static final Map<String, String> owners = Collections.synchronizedMap(new HashMap<>());
    static final List<String> claimed = Collections.synchronizedList(new ArrayList<>());

    static void claim(String name, String owner) {
        if (owners.putIfAbsent(name, owner) == null) {
            claimed.add(owner);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread alice = new Thread(() -> claim("admin", "alice"));
        Thread bob = new Thread(() -> claim("admin", "bob"));
        alice.start();
        bob.start();
        alice.join();
        bob.join();
        System.out.println("admin belongs to " + owners.get("admin"));
        if (claimed.size() != 1) {
            throw new IllegalStateException("'admin' claimed by " + claimed);
        }
    }
}
