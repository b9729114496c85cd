package longadderearlysignalfixed;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

/**
 * LongAdderEarlySignal fixed: a worker counts the latch down after its last item, so the sum
 * main reads after the latch holds every item.
 */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        LongAdder processed = new LongAdder();
        CountDownLatch done = new CountDownLatch(2);
        for (int w = 0; w < 2; w++) {
            new Thread(() -> {
                for (int item = 0; item < 3; item++) {
                    processed.increment();
                }
                done.countDown();
            }).start();
        }
        done.await();
        long sum = processed.sum();
        System.out.println("processed " + sum);
        if (sum != 6) {
            throw new IllegalStateException("processed " + sum + " of 6 items");
        }
    }
}
