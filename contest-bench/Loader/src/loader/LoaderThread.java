package loader;

import java.util.Map;

/** Reads the configuration (here: builds it) and publishes it in the registry. */
final class LoaderThread extends Thread {
    private final Registry registry;

    LoaderThread(Registry registry) {
        super("loader");
        this.registry = registry;
    }

    @Override
    public void run() {
        Map<String, String> loaded = Registry.configuration();
        registry.publish(loaded);
    }
}
