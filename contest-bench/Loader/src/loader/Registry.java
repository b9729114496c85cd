package loader;

import java.util.HashMap;
import java.util.Map;

/**
 * The service registry the loader fills at start-up. Publishing and looking up hold the
 * registry's lock, so what a lookup sees is consistent; but nothing makes a lookup wait for the
 * loader.
 */
final class Registry {
    private Map<String, String> services;

    synchronized void publish(Map<String, String> loaded) {
        services = loaded;
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
