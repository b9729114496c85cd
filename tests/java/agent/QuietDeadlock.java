/**
 * A wait that keeps an outer monitor: the waiter enters OUTER and INNER (inside a quiet stretch
 * these enters pass in Java, and the model must learn them before the wait), then waits on
 * INNER while still owning OUTER; the other thread blocks on OUTER before it could notify. A
 * deadlock under every schedule.
 */
public class QuietDeadlock {
    static final Object OUTER = new Object();
    static final Object INNER = new Object();

    static final class Waiter implements Runnable {
        public void run() {
            synchronized (OUTER) {
                synchronized (INNER) {
                    try {
                        INNER.wait();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
    }

    static final class Notifier implements Runnable {
        public void run() {
            Thread.yield();
            synchronized (OUTER) {
                synchronized (INNER) {
                    INNER.notify();
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Thread waiter = new Thread(new Waiter(), "waiter");
        Thread notifier = new Thread(new Notifier(), "notifier");
        waiter.start();
        notifier.start();
        waiter.join();
        notifier.join();
    }
}
