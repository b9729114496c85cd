/**
 * Monitor operations and interrupt queries that a quiet stretch lets pass in Java (the
 * nonpreemptive baseline), mixed with ones that must reach the model: nested and reentrant
 * enters, a wait inside a monitor entered twice in Java (the model must own it first), notify, a
 * thread's own interrupt and the queries around it, and an exception leaving a synchronized
 * block. Prints the same lines under plain java and under every strategy.
 */
public class QuietMonitors {
    static final Object OUTER = new Object();
    static final Object INNER = new Object();
    static boolean ready;
    static int total;

    static final class Waiter implements Runnable {
        public void run() {
            synchronized (OUTER) {
                synchronized (INNER) {
                    synchronized (OUTER) { // reentrant
                        total += 1;
                    }
                }
            }
            synchronized (INNER) {
                synchronized (INNER) { // the wait releases both holds, and takes both back
                    while (!ready) {
                        try {
                            INNER.wait();
                        } catch (InterruptedException e) {
                            throw new AssertionError("nobody interrupts the waiter", e);
                        }
                    }
                    total += 10;
                }
                total += 10;
            }
        }
    }

    static final class Signaller implements Runnable {
        public void run() {
            for (int i = 0; i < 50; i++) {
                synchronized (OUTER) {
                    total += 100;
                }
            }
            synchronized (INNER) {
                ready = true;
                INNER.notifyAll();
            }
            if (Thread.interrupted()) throw new AssertionError("flag set before any interrupt");
            Thread.currentThread().interrupt();
            if (!Thread.currentThread().isInterrupted()) throw new AssertionError("flag lost");
            if (!Thread.interrupted()) throw new AssertionError("interrupted() missed the flag");
            if (Thread.interrupted()) throw new AssertionError("interrupted() did not clear it");
            try {
                synchronized (OUTER) {
                    throw new IllegalStateException("leaves the block");
                }
            } catch (IllegalStateException expected) {
                if (Thread.holdsLock(OUTER)) throw new AssertionError("still holds OUTER");
            }
            synchronized (OUTER) {
                total += 1000;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Thread waiter = new Thread(new Waiter(), "waiter");
        Thread signaller = new Thread(new Signaller(), "signaller");
        waiter.start();
        signaller.start();
        waiter.join();
        signaller.join();
        System.out.println("total=" + total);
    }
}
