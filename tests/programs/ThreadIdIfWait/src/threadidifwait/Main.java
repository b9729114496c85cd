package threadidifwait;

/**
 * Main puts two items on a shelf, one at a time with notifyAll; two unnamed consumers take one
 * each. A consumer that finds the shelf empty waits; the buggy variant re-checks nothing after
 * waking up, so when both consumers wake for one item the second takes from an empty shelf and
 * reports its thread id. The consumers only need to be waiting before main fills the shelf,
 * which they are when they run as soon as they are started: (c, v, t) = (0, 0, 3) under
 * RankChecker counting.
 */
public class Main {
    static final Object SHELF = new Object();
    static int items;

    static void take() throws InterruptedException {
        synchronized (SHELF) {
            if (items == 0) { // BUG: if, not while
                SHELF.wait();
            }
            items--;
            if (items < 0) {
                throw new IllegalStateException("consumer id " + Thread.currentThread().getId()
                        + " took from an empty shelf: items = " + items);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Runnable consumer = () -> {
            try {
                take();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        };
        Thread a = new Thread(consumer);
        Thread b = new Thread(consumer);
        a.start();
        b.start();
        for (int i = 0; i < 2; i++) {
            synchronized (SHELF) {
                items++;
                SHELF.notifyAll();
            }
        }
        a.join();
        b.join();
        System.out.println("shelf empty, items = " + items);
    }
}
