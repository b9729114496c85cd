package spinatomicboolean;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Two unnamed workers spin on an AtomicBoolean until main has prepared their input. */
public class Main {
    static final AtomicBoolean go = new AtomicBoolean();
    static final AtomicInteger total = new AtomicInteger();
    static int[] input;

    public static void main(String[] args) throws InterruptedException {
        Runnable worker = () -> {
            while (!go.get()) {
            }
            int sum = 0;
            for (int x : input) {
                sum += x;
            }
            total.addAndGet(sum);
        };
        Thread a = new Thread(worker);
        Thread b = new Thread(worker);
        a.start();
        b.start();
        input = new int[] {1, 2, 3};
        go.set(true);
        a.join();
        b.join();
        if (total.get() != 12) {
            throw new IllegalStateException("total " + total.get());
        }
        System.out.println("total " + total.get());
    }
}
