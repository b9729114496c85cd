package loaderfixed;

import java.util.HashMap;
import java.util.Map;

/**
 * The service registry the loader fills at start-up. Publishing and looking up hold the
 * registry's lock, and {@link #awaitLoaded} lets a worker wait until the loader has published.
 */
final class Registry {
    private Map<String, String> services;

    synchronized void publish(Map<String, String> loaded) {
        services = loaded;
        notifyAll();
    }

    /** The fix: wait (in a loop, so spurious wake-ups do no harm) until the loader published. */
    synchronized void awaitLoaded() throws InterruptedException {
        while (services == null) {
            wait();
        }
    }

    /** The address of {@code service}, or null when the registry has not been loaded yet. */
    synchronized String lookup(String service) {
        return services == null ? null : services.get(service);
    }

    static Map<String, String> configuration() {
        Map<String, String> m = new HashMap<>();
        m.put("database", "db.internal:5432");
        m.put("cache", "cache.internal:6379");
        m.put("mail", "smtp.internal:25");
        return m;
    }
}
