/**
 * join, sleep, interrupt, timed waits and clocks, in an order that does not depend on the
 * schedule: the printed lines must equal those of a plain `java` run.
 */
public class Semantics {
    static final Object LOCK = new Object();
    static boolean released;
    static int x;

    public static void main(String[] args) throws Exception {
        // sleep, then join: the worker's write is visible after join.
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                System.out.println("sleeper interrupted?!");
            }
            x = 1;
        });
        sleeper.start();
        sleeper.join();
        System.out.println("after join x=" + x + " alive=" + sleeper.isAlive());

        // interrupt a thread blocked in wait: it gets InterruptedException.
        Thread waiter = new Thread(() -> {
            synchronized (LOCK) {
                try {
                    while (!released) LOCK.wait();
                    System.out.println("waiter released");
                } catch (InterruptedException e) {
                    System.out.println("waiter interrupted, flag=" + Thread.currentThread().isInterrupted());
                }
            }
        });
        waiter.start();
        waiter.join(50); // times out: the waiter waits for ever
        System.out.println("timed join returned, alive=" + waiter.isAlive());
        waiter.interrupt();
        waiter.join();

        // interrupt an own flag: interrupted() reports and clears it.
        Thread.currentThread().interrupt();
        System.out.println("isInterrupted=" + Thread.currentThread().isInterrupted());
        System.out.println("interrupted=" + Thread.interrupted());
        System.out.println("interrupted again=" + Thread.interrupted());

        // sleep with the flag set throws at once and clears it.
        Thread.currentThread().interrupt();
        try {
            Thread.sleep(10);
            System.out.println("slept despite interrupt?!");
        } catch (InterruptedException e) {
            System.out.println("sleep interrupted, flag=" + Thread.currentThread().isInterrupted());
        }

        // a timed wait nobody notifies returns.
        synchronized (LOCK) {
            LOCK.wait(30);
        }
        System.out.println("timed wait returned");

        // notify wakes a waiter.
        Thread sleeper2 = new Thread(() -> {
            synchronized (LOCK) {
                while (!released) {
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                System.out.println("notified waiter done");
            }
        });
        synchronized (LOCK) {
            released = false;
        }
        sleeper2.start();
        while (sleeper2.getState() != Thread.State.WAITING && sleeper2.isAlive()) Thread.yield();
        synchronized (LOCK) {
            released = true;
            LOCK.notify();
        }
        sleeper2.join();

        // time moves forward across a sleep.
        long t0 = System.currentTimeMillis();
        Thread.sleep(100);
        long t1 = System.currentTimeMillis();
        System.out.println("clock advanced by >= 100ms: " + (t1 - t0 >= 100));
        System.out.println("done");
    }
}
