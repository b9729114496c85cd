package updatercheckthenact;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One ticket left; two buyers each check the volatile count with a plain read and, if a ticket
 * is left, decrement it through an AtomicIntegerFieldUpdater. The decrement is atomic; the check
 * and the decrement together are not: buyer 1 sees 1 and is preempted, buyer 2 sees 1 and sells,
 * buyer 1 sells again and the count goes to -1. (c, v, t) = (1, 1, 2).
 */
public class Main {
    volatile int ticketsLeft = 1;
    volatile int sold;

    static final AtomicIntegerFieldUpdater<Main> TICKETS =
            AtomicIntegerFieldUpdater.newUpdater(Main.class, "ticketsLeft");
    static final AtomicIntegerFieldUpdater<Main> SOLD =
            AtomicIntegerFieldUpdater.newUpdater(Main.class, "sold");

    void buy() {
        // The updaters in locals: the only scheduling points after the check are the updaters'.
        AtomicIntegerFieldUpdater<Main> tickets = TICKETS;
        AtomicIntegerFieldUpdater<Main> sold = SOLD;
        if (ticketsLeft > 0) {
            tickets.decrementAndGet(this); // BUG: the check above may be stale by now
            sold.incrementAndGet(this);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main shop = new Main();
        Thread[] buyers = new Thread[2];
        for (int i = 0; i < buyers.length; i++) {
            buyers[i] = new Thread(shop::buy, "buyer-" + i);
            buyers[i].start();
        }
        for (Thread b : buyers) {
            b.join();
        }
        if (SOLD.get(shop) != 1) {
            throw new AssertionError(SOLD.get(shop) + " tickets sold through the updater, "
                    + TICKETS.get(shop) + " left");
        }
        System.out.println("sold " + SOLD.get(shop));
    }
}
