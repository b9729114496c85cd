package usebeforeinit;

/**
 * Main starts a worker and only then creates the configuration the worker reads.
 *
 * <p>A failing interleaving exists: if the worker runs its first statement before main assigns
 * {@code config}, it dereferences null and dies with a NullPointerException. No preemption is
 * needed under RankChecker counting (the new worker simply has a higher priority than main and
 * takes over when it is started); CHESS counting needs one, at the start of the worker. Two
 * threads: (c, v, t) = (0, 0, 2).
 */
public class Main {
    static final class Config {
        final String name;
        final int retries;

        Config(String name, int retries) {
            this.name = name;
            this.retries = retries;
        }
    }

    static Config config;
    static int attempts;

    public static void main(String[] args) throws InterruptedException {
        Thread worker = new Thread(Main::work, "worker");
        worker.start();
        config = new Config("rankcheck", 3); // too late: the worker may already be running
        worker.join();
        System.out.println(config.name + " made " + attempts + " attempts");
    }

    static void work() {
        for (int i = 0; i < config.retries; i++) { // NullPointerException if main is behind
            attempts++;
        }
    }
}
