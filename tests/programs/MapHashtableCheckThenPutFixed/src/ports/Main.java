package ports;

import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Two threads start the same service; the check and the put are one atomic putIfAbsent. */
public class Main {
    static void start(
            Map<String, Integer> registry, AtomicInteger launched, String service, int port) {
        if (registry.putIfAbsent(service, port) == null) {
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
