package loaderfixed;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads the configuration, one entry at a time (each read takes a moment: a short sleep stands
 * for the disk), and publishes it in the registry.
 */
final class LoaderThread extends Thread {
    private final Registry registry;

    LoaderThread(Registry registry) {
        super("loader");
        this.registry = registry;
    }

    @Override
    public void run() {
        Map<String, String> loaded = new HashMap<>();
        try {
            for (Map.Entry<String, String> entry : Registry.configuration().entrySet()) {
                Thread.sleep(1); // reading one entry
                loaded.put(entry.getKey(), entry.getValue());
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException("loader interrupted", e);
        }
        registry.publish(loaded);
    }
}
