package metrics;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static final AtomicInteger processed = new AtomicInteger();

    public static void main(String[] args) {
        int jobs = 3;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            int done = processed.get();
            System.out.println("processed " + done + " of " + jobs);
            if (done != jobs) {
                throw new IllegalStateException("exited with " + (jobs - done) + " job(s) unfinished");
            }
        }));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (int i = 0; i < jobs; i++) {
            pool.execute(processed::incrementAndGet);
        }
        pool.shutdown();
        System.exit(0);
    }
}
