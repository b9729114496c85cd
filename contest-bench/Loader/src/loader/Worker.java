package loader;

/**
 * A worker that needs the registry. It "gives the loader time" by sleeping first, and then
 * assumes the registry is loaded: the bug. Sleeping orders nothing; a worker that gets to run
 * before the loader finds the registry empty.
 */
final class Worker extends Thread {
    private static final String[] NEEDS = {"database", "cache", "mail"};

    private final Registry registry;
    private final long napMillis;
    private int served;

    Worker(int id, Registry registry, long napMillis) {
        super("worker-" + id);
        this.registry = registry;
        this.napMillis = napMillis;
    }

    @Override
    public void run() {
        try {
            Thread.sleep(napMillis); // initialization-sleep: hoping the loader is done by now
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
