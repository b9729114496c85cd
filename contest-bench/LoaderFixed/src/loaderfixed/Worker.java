package loaderfixed;

/** A worker that needs the registry; it waits until the loader has published it. */
final class Worker extends Thread {
    private static final String[] NEEDS = {"database", "cache", "mail"};

    private final Registry registry;
    private int served;

    Worker(int id, Registry registry) {
        super("worker-" + id);
        this.registry = registry;
    }

    @Override
    public void run() {
        try {
            registry.awaitLoaded();
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
        for (String service : NEEDS) {
            String address = registry.lookup(service);
            if (address == null) {
                throw new AssertionError("Loader: BUG " + getName() + " found no " + service
                        + " in the registry: it ran before the loader");
            }
            served++;
        }
    }

    int served() {
        return served;
    }
}
