package atomiccheckthenactfixed;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * AtomicCheckThenAct with a compare-and-set loop: a buyer's decrement succeeds only if the counter
 * still holds the value it checked, so exactly one ticket is sold under every interleaving.
 */
public class Main {
    static final AtomicInteger ticketsLeft = new AtomicInteger(1);
    static final AtomicInteger sold = new AtomicInteger();

    static void buy() {
        while (true) {
            int left = ticketsLeft.get();
            if (left == 0) {
                return;
            }
            if (ticketsLeft.compareAndSet(left, left - 1)) {
                sold.incrementAndGet();
                return;
            }
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
