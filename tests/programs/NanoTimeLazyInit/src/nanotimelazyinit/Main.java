package nanotimelazyinit;

/**
 * A lazily created Config records when it was made. Two unnamed threads each get it. The buggy
 * getter tests and sets {@code instance} without a lock, so both threads can make one.
 * (c, v, t) = (1, 1, 2). Main's message prints the two creation times (System.nanoTime()).
 */
public class Main {
    static class Config {
        final long createdAt = System.nanoTime();
    }

    static Config instance;

    static Config config() {
        if (instance == null) {
            instance = new Config();
        }
        return instance;
    }

    public static void main(String[] args) throws InterruptedException {
        Config[] seen = new Config[2];
        Thread a = new Thread(() -> seen[0] = config());
        Thread b = new Thread(() -> seen[1] = config());
        a.start();
        b.start();
        a.join();
        b.join();
        if (seen[0] != seen[1]) {
            throw new IllegalStateException("two configs, created at " + seen[0].createdAt
                    + " ns and " + seen[1].createdAt + " ns");
        }
        System.out.println("one config");
    }
}
