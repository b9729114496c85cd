package usebeforeinitfixed;

/**
 * UseBeforeInit with the configuration created before the worker is started; Thread.start makes
 * the assignment visible to the worker under every interleaving.
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
        config = new Config("rankcheck", 3);
        Thread worker = new Thread(Main::work, "worker");
        worker.start();
        worker.join();
        if (attempts != 3) {
            throw new AssertionError("attempts = " + attempts);
        }
        System.out.println(config.name + " made " + attempts + " attempts");
    }

    static void work() {
        for (int i = 0; i < config.retries; i++) {
            attempts++;
        }
    }
}
