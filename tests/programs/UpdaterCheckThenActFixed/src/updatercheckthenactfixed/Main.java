package updatercheckthenactfixed;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * UpdaterCheckThenAct fixed: the decrement is a compareAndSet from the value checked, retried
 * when another buyer changed the count meanwhile. The buyer's name goes into a reference field
 * through an AtomicReferenceFieldUpdater (only if no one is recorded yet) and the sales into a
 * long through an AtomicLongFieldUpdater.
 */
public class Main {
    volatile int ticketsLeft = 1;
    volatile long sold;
    volatile String buyer;

    static final AtomicIntegerFieldUpdater<Main> TICKETS =
            AtomicIntegerFieldUpdater.newUpdater(Main.class, "ticketsLeft");
    static final AtomicLongFieldUpdater<Main> SOLD = AtomicLongFieldUpdater.newUpdater(Main.class, "sold");
    static final AtomicReferenceFieldUpdater<Main, String> BUYER =
            AtomicReferenceFieldUpdater.newUpdater(Main.class, String.class, "buyer");

    void buy() {
        for (;;) {
            int left = ticketsLeft;
            if (left <= 0) {
                return;
            }
            if (TICKETS.compareAndSet(this, left, left - 1)) {
                SOLD.incrementAndGet(this);
                if (!BUYER.compareAndSet(this, null, Thread.currentThread().getName())) {
                    throw new AssertionError("a second buyer for one ticket");
                }
                return;
            }
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
        if (SOLD.get(shop) != 1 || BUYER.get(shop) == null || shop.ticketsLeft != 0) {
            throw new AssertionError(SOLD.get(shop) + " sold to " + BUYER.get(shop));
        }
        System.out.println("sold " + SOLD.get(shop));
    }
}
