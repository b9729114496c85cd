package varhandlecheckthenact;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One ticket left; two buyers each read the count through a VarHandle (getAcquire) and, if a
 * ticket is left, store the decremented count (setRelease). Each access is atomic; the pair is
 * not: buyer 1 reads 1 and is preempted, buyer 2 reads 1 and sells, buyer 1 sells again.
 * (c, v, t) = (1, 1, 2).
 */
public class Main {
    private volatile int ticketsLeft = 1;
    private volatile int sold;

    private static final VarHandle TICKETS;
    private static final VarHandle SOLD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TICKETS = lookup.findVarHandle(Main.class, "ticketsLeft", int.class);
            SOLD = lookup.findVarHandle(Main.class, "sold", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    void buy() {
        // The handles in locals: the only scheduling points between the check and the act are
        // the VarHandle accesses themselves.
        VarHandle tickets = TICKETS;
        VarHandle sold = SOLD;
        int left = (int) tickets.getAcquire(this);
        if (left > 0) {
            tickets.setRelease(this, left - 1); // BUG: another buyer may have taken it meanwhile
            sold.getAndAdd(this, 1);
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
        int sold = (int) SOLD.getVolatile(shop);
        if (sold != 1) {
            throw new AssertionError(sold + " tickets sold through the VarHandle, 1 was available");
        }
        System.out.println("sold " + sold);
    }
}
