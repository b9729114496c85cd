package lastoneout;

import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    private final Object lock = new Object();
    private int remaining = 20;
    private final AtomicInteger completions = new AtomicInteger();

    void finish() {
        synchronized (lock) {
            remaining--;
        }
        if (remaining == 0) {
            if (completions.incrementAndGet() > 1) {
                throw new IllegalStateException("completion ran twice");
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main job = new Main();
        Thread[] workers = new Thread[20];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(job::finish);
            workers[i].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        System.out.println("completions: " + job.completions.get());
    }
}
