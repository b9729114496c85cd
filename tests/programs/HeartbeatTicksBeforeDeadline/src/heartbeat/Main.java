package heartbeat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A probe thread polls three times with parkNanos(10 ms), then a heartbeat ticks every 10 ms on
 * a scheduler; main gives each five seconds. Correct on any machine that runs a few
 * milliseconds of work in less than five seconds.
 */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        CountDownLatch probed = new CountDownLatch(1);
        Thread probe = new Thread(() -> {
            for (int poll = 0; poll < 3; poll++) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            probed.countDown();
        });
        probe.start();
        if (!probed.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("the probe did not answer within five seconds");
        }
        probe.join();

        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch fourBeats = new CountDownLatch(4);
        AtomicInteger beats = new AtomicInteger();
        scheduler.scheduleAtFixedRate(() -> {
            beats.incrementAndGet();
            fourBeats.countDown();
        }, 10, 10, TimeUnit.MILLISECONDS);
        boolean alive = fourBeats.await(5, TimeUnit.SECONDS);
        scheduler.shutdownNow();
        if (!alive) {
            throw new AssertionError("no heartbeat within five seconds (" + beats.get() + " beats)");
        }
        System.out.println("healthy after " + beats.get() + " beats");
    }
}
