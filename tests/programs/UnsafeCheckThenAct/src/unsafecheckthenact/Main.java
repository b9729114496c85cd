package unsafecheckthenact;

import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * One ticket left; two buyers each read the count with Unsafe.getIntVolatile and, if a ticket is
 * left, store the decremented count with putIntVolatile: buyer 1 reads 1 and is preempted, buyer
 * 2 reads 1 and sells, buyer 1 sells again. (c, v, t) = (1, 1, 2).
 */
public class Main {
    volatile int ticketsLeft = 1;
    volatile int sold;

    static final Unsafe U;
    static final long LEFT;
    static final long SOLD;

    static {
        try {
            Field theUnsafe = Unsafe.class.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            U = (Unsafe) theUnsafe.get(null);
            LEFT = U.objectFieldOffset(Main.class.getDeclaredField("ticketsLeft"));
            SOLD = U.objectFieldOffset(Main.class.getDeclaredField("sold"));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    void buy() {
        // Unsafe and the offsets in locals: the only scheduling points between the check and the
        // act are the Unsafe accesses themselves.
        Unsafe u = U;
        long leftOffset = LEFT;
        long soldOffset = SOLD;
        int left = u.getIntVolatile(this, leftOffset);
        if (left > 0) {
            u.putIntVolatile(this, leftOffset, left - 1); // BUG: another buyer may have taken it meanwhile
            u.getAndAddInt(this, soldOffset, 1);
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
        int sold = U.getIntVolatile(shop, SOLD);
        if (sold != 1) {
            throw new AssertionError(sold + " tickets sold through Unsafe, 1 was available");
        }
        System.out.println("sold " + sold);
    }
}
