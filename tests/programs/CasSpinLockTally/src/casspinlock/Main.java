package casspinlock;

import java.util.concurrent.atomic.AtomicBoolean;

/** A tally guarded by a home-made spin lock. */
public class Main {
    static final class SpinLock {
        private final AtomicBoolean locked = new AtomicBoolean();

        void lock() {
            while (!locked.compareAndSet(false, true)) {
                // busy-wait until the holder lets go
            }
        }

        void unlock() {
            locked.set(false);
        }
    }

    static final SpinLock lock = new SpinLock();
    static int tally;

    static void add(int n) {
        lock.lock();
        try {
            tally += n;
        } finally {
            lock.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread evens = new Thread(() -> { for (int i = 0; i < 6; i += 2) add(i); });
        Thread odds = new Thread(() -> { for (int i = 1; i < 6; i += 2) add(i); });
        evens.start();
        odds.start();
        evens.join();
        odds.join();
        System.out.println("tally " + tally);
        if (tally != 15) throw new IllegalStateException("tally " + tally);
    }
}
