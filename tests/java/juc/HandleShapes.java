import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import sun.misc.Unsafe;

/**
 * Every shape of VarHandle, field-updater and Unsafe call the rewriter spills and announces:
 * int, long, double and reference fields, static fields, array elements, each access mode
 * family, two threads racing on CAS loops. Prints one line of results that must not depend on
 * the interleaving (every update is a CAS loop or atomic).
 */
public class HandleShapes {
    volatile int i;
    volatile long l;
    volatile double d;
    volatile String s = "";
    static volatile long total;
    final long[] slots = new long[4];

    static final VarHandle I, L, D, S, TOTAL, SLOT;
    static final AtomicLongFieldUpdater<HandleShapes> L_UPDATER =
            AtomicLongFieldUpdater.newUpdater(HandleShapes.class, "l");
    static final AtomicReferenceFieldUpdater<HandleShapes, String> S_UPDATER =
            AtomicReferenceFieldUpdater.newUpdater(HandleShapes.class, String.class, "s");
    static final Unsafe U;
    static final long I_OFFSET, D_OFFSET;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            I = lookup.findVarHandle(HandleShapes.class, "i", int.class);
            L = lookup.findVarHandle(HandleShapes.class, "l", long.class);
            D = lookup.findVarHandle(HandleShapes.class, "d", double.class);
            S = lookup.findVarHandle(HandleShapes.class, "s", String.class);
            TOTAL = lookup.findStaticVarHandle(HandleShapes.class, "total", long.class);
            SLOT = MethodHandles.arrayElementVarHandle(long[].class);
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            U = (Unsafe) f.get(null);
            I_OFFSET = U.objectFieldOffset(HandleShapes.class.getDeclaredField("i"));
            D_OFFSET = U.objectFieldOffset(HandleShapes.class.getDeclaredField("d"));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    void work(int id) {
        for (int k = 0; k < 3; k++) {
            I.getAndAdd(this, 1);
            L.getAndAddRelease(this, 2L);
            double seen;
            do {
                seen = (double) D.getVolatile(this);
            } while (!D.weakCompareAndSet(this, seen, seen + 0.5));
            String old;
            do {
                old = (String) S.getAcquire(this);
            } while (!S.compareAndSet(this, old, old + id));
            TOTAL.getAndAdd(1L);
            SLOT.getAndAdd(slots, id, 10L);
            long before = (long) SLOT.compareAndExchange(slots, 3, 0L, 0L);
            I.getAndBitwiseOr(this, 0);
            L_UPDATER.addAndGet(this, 1L);
            String r;
            do {
                r = S_UPDATER.get(this);
            } while (!S_UPDATER.compareAndSet(this, r, r));
            U.getAndAddInt(this, I_OFFSET, 1);
            double u;
            do {
                u = U.getDoubleVolatile(this, D_OFFSET);
            } while (!U.compareAndSwapLong(this, D_OFFSET, Double.doubleToRawLongBits(u),
                    Double.doubleToRawLongBits(u + 0.25)));
            if (before != 0L) throw new AssertionError("slot 3 is never written");
        }
    }

    public static void main(String[] args) throws InterruptedException {
        total = 0;
        HandleShapes h = new HandleShapes();
        Thread a = new Thread(() -> h.work(1));
        Thread b = new Thread(() -> h.work(2));
        a.start();
        b.start();
        h.work(0);
        a.join();
        b.join();
        I.setVolatile(h, (int) I.getOpaque(h) + 0);
        L.setOpaque(h, (long) L.getVolatile(h));
        System.out.println("shapes i=" + (int) I.get(h) + " l=" + L_UPDATER.get(h) + " d=" + h.d
                + " s=" + h.s.length() + " total=" + (long) TOTAL.getVolatile() + " slots="
                + h.slots[0] + "," + h.slots[1] + "," + h.slots[2] + "," + (long) SLOT.getAcquire(h.slots, 3));
    }
}
