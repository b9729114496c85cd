package unsafecheckthenactfixed;

import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * UnsafeCheckThenAct fixed: the decrement is a compareAndSwapInt from the value read, retried
 * when another buyer changed the count meanwhile.
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
        for (;;) {
            int left = U.getIntVolatile(this, LEFT);
            if (left <= 0) {
                return;
            }
            if (U.compareAndSwapInt(this, LEFT, left, left - 1)) {
                U.getAndAddInt(this, SOLD, 1);
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
        int sold = U.getIntVolatile(shop, SOLD);
        if (sold != 1 || shop.ticketsLeft != 0) {
            throw new AssertionError(sold + " sold, " + shop.ticketsLeft + " left");
        }
        System.out.println("sold " + sold);
    }
}
