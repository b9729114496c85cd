package stripes;

import java.util.concurrent.atomic.AtomicIntegerArray;

public class Main {
    static final int STRIPES = 4;
    private final AtomicIntegerArray cells = new AtomicIntegerArray(STRIPES);
    private long flushed;

    void add(int who) {
        for (int i = 0; i < 3; i++) {
            cells.incrementAndGet((who + i) % STRIPES);
        }
    }

    void flush() {
        long sum = 0;
        for (int i = 0; i < STRIPES; i++) {
            sum += cells.get(i);
        }
        for (int i = 0; i < STRIPES; i++) {
            cells.set(i, 0);
        }
        flushed += sum;
    }

    public static void main(String[] args) throws InterruptedException {
        Main counter = new Main();
        Thread[] adders = new Thread[8];
        for (int i = 0; i < adders.length; i++) {
            final int who = i;
            adders[i] = new Thread(() -> counter.add(who));
            adders[i].start();
        }
        Thread flusher = new Thread(counter::flush);
        flusher.start();
        for (Thread t : adders) {
            t.join();
        }
        flusher.join();
        counter.flush();
        if (counter.flushed != 24) {
            throw new AssertionError("counted " + counter.flushed + " of 24 adds");
        }
        System.out.println("counted " + counter.flushed);
    }
}
