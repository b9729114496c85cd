package tally;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

public class Main {
    private long total;

    private synchronized void add(long n) {
        total += n;
    }

    public static void main(String[] args) throws InterruptedException {
        Main tally = new Main();
        AtomicLong atomic = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            final int n = i;
            Thread t = new Thread(() -> {
                for (int k = 0; k < 3; k++) {
                    tally.add(n);
                    atomic.addAndGet(n);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (tally.total != 165 || atomic.get() != 165) {
            throw new AssertionError("lost an addition: " + tally.total + " / " + atomic.get());
        }
        System.out.println("total " + tally.total);
    }
}
