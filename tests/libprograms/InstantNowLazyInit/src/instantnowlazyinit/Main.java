package instantnowlazyinit;

import java.time.Instant;

public class Main {
    static class Config {
        final Instant createdAt = Instant.now();
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
                    + " and " + seen[1].createdAt);
        }
        System.out.println("one config");
    }
}
