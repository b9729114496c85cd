package varhandlecheckthenactfixed;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * VarHandleCheckThenAct fixed: the decrement is a compareAndSet that fails when another buyer
 * took the ticket since the read, and the buyer then reads again. The sale count is a static
 * field (findStaticVarHandle) and each buyer's receipt an array element (arrayElementVarHandle).
 */
public class Main {
    private volatile int ticketsLeft = 1;
    private static int sold;
    private final int[] receipts = new int[2];

    private static final VarHandle TICKETS;
    private static final VarHandle SOLD;
    private static final VarHandle RECEIPT = MethodHandles.arrayElementVarHandle(int[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TICKETS = lookup.findVarHandle(Main.class, "ticketsLeft", int.class);
            SOLD = lookup.findStaticVarHandle(Main.class, "sold", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    void buy(int buyer) {
        for (;;) {
            int left = (int) TICKETS.getAcquire(this);
            if (left <= 0) {
                return;
            }
            if (TICKETS.compareAndSet(this, left, left - 1)) {
                SOLD.getAndAdd(1);
                RECEIPT.setVolatile(receipts, buyer, 1);
                return;
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main shop = new Main();
        Thread[] buyers = new Thread[2];
        for (int i = 0; i < buyers.length; i++) {
            int buyer = i;
            buyers[i] = new Thread(() -> shop.buy(buyer), "buyer-" + i);
            buyers[i].start();
        }
        for (Thread b : buyers) {
            b.join();
        }
        int sold = (int) SOLD.getVolatile();
        int receipts = (int) RECEIPT.getVolatile(shop.receipts, 0) + (int) RECEIPT.getVolatile(shop.receipts, 1);
        if (sold != 1 || receipts != 1 || shop.ticketsLeft != 0) {
            throw new AssertionError(sold + " sold, " + receipts + " receipts, " + shop.ticketsLeft + " left");
        }
        System.out.println("sold " + sold);
    }
}
