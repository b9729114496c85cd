package pump;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    private static volatile boolean running = true;

    public static void main(String[] args) throws InterruptedException {
        BlockingQueue<String> jobs = new LinkedBlockingQueue<>();
        AtomicInteger moved = new AtomicInteger();
        Thread pump = new Thread(() -> {
            try {
                while (running) {
                    String job = jobs.poll(10, TimeUnit.MILLISECONDS);
                    if (job != null) {
                        moved.incrementAndGet();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        pump.start();
        for (int i = 0; i < 3; i++) {
            jobs.put("job-" + i);
        }
        while (moved.get() < 3) {
            Thread.sleep(5);
        }
        running = false;
        pump.join();
        System.out.println("moved " + moved.get() + " jobs");
    }
}
