package longadderearlysignal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

/**
 * Two workers count the items they process in a LongAdder and count a latch down when they
 * are done; main waits for the latch and reads the sum. The bug: a worker counts the latch
 * down before it counts its last item, so main can read the sum one short.
 */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        LongAdder processed = new LongAdder();
        CountDownLatch done = new CountDownLatch(2);
        for (int w = 0; w < 2; w++) {
            new Thread(() -> {
                for (int item = 0; item < 3; item++) {
                    if (item == 2) {
                        done.countDown();
                    }
                    processed.increment();
                }
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
