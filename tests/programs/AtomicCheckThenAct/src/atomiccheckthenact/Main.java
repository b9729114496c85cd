package atomiccheckthenact;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One ticket left; two buyers each read the AtomicInteger counter with get() and, if a ticket is
 * left, store the decremented value with set(). Each call is atomic; the pair is not.
 *
 * <p>A failing interleaving exists: buyer 1 gets 1 and is preempted; buyer 2 gets 1, sets 0, counts
 * a sale and ends; buyer 1 sets 0 and counts a second sale. One preemption, at the counter, two
 * threads: (c, v, t) = (1, 1, 2).
 */
public class Main {
    static final AtomicInteger ticketsLeft = new AtomicInteger(1);
    static final AtomicInteger sold = new AtomicInteger();

    static void buy() {
        int left = ticketsLeft.get();
        if (left > 0) {
            ticketsLeft.set(left - 1); // BUG: another buyer may have taken the ticket meanwhile
            sold.incrementAndGet();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] buyers = new Thread[2];
        for (int i = 0; i < buyers.length; i++) {
            buyers[i] = new Thread(Main::buy, "buyer-" + i);
            buyers[i].start();
        }
        for (Thread b : buyers) {
            b.join();
        }
        if (sold.get() != 1) {
            throw new AssertionError(sold.get() + " tickets sold, 1 was available");
        }
        System.out.println("sold " + sold.get());
    }
}
