package ports;

import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two threads start the same service on different ports. The registry is a thread-safe
 * Hashtable behind a Map, so each call is atomic, but the check and the put are two calls:
 * after both threads have seen no "billing" (one preemption, between the first thread's
 * containsKey and its put), both put and both launch a server, and main finds two servers for
 * one registered service. With no preemption each thread's check-then-put runs whole and the
 * second sees the first's entry; two threads and the one registry are needed, so the bug needs
 * c = 1, v = 1, t = 2.
 */
public class Main {
    static void start(
            Map<String, Integer> registry, AtomicInteger launched, String service, int port) {
        if (!registry.containsKey(service)) {
            registry.put(service, port);
            launched.incrementAndGet();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, Integer> registry = new Hashtable<>();
        AtomicInteger launched = new AtomicInteger();
        Thread first = new Thread(() -> start(registry, launched, "billing", 8080));
        Thread second = new Thread(() -> start(registry, launched, "billing", 8081));
        first.start();
        second.start();
        first.join();
        second.join();
        System.out.println("registry: " + registry + ", servers launched: " + launched);
        if (launched.get() != registry.size()) {
            throw new IllegalStateException(launched + " servers launched for "
                    + registry.size() + " registered service(s): " + registry);
        }
    }
}
