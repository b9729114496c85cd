package handlespinlock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/** Three tallies, each guarded by a home-made spin lock of another kind. */
public class Main {
    interface Lock {
        void lock();

        void unlock();
    }

    /** A lock word changed through a VarHandle. */
    static final class HandleLock implements Lock {
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(HandleLock.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile int state;

        public void lock() {
            while (!STATE.compareAndSet(this, 0, 1)) {
                Thread.onSpinWait();
            }
        }

        public void unlock() {
            STATE.setVolatile(this, 0);
        }
    }

    /** The owning thread, set through a field updater. */
    static final class OwnerLock implements Lock {
        private static final AtomicReferenceFieldUpdater<OwnerLock, Thread> OWNER =
                AtomicReferenceFieldUpdater.newUpdater(OwnerLock.class, Thread.class, "owner");

        private volatile Thread owner;

        public void lock() {
            Thread me = Thread.currentThread();
            while (!OWNER.compareAndSet(this, null, me)) {
                // spin
            }
        }

        public void unlock() {
            owner = null;
        }
    }

    /** The old way: sun.misc.Unsafe on a field offset. */
    static final class UnsafeLock implements Lock {
        private static final sun.misc.Unsafe U;
        private static final long HELD;

        static {
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                U = (sun.misc.Unsafe) f.get(null);
                HELD = U.objectFieldOffset(UnsafeLock.class.getDeclaredField("held"));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile int held;

        public void lock() {
            while (!U.compareAndSwapInt(this, HELD, 0, 1)) {
                Thread.yield();
            }
        }

        public void unlock() {
            held = 0;
        }
    }

    static final Lock[] locks = {new HandleLock(), new OwnerLock(), new UnsafeLock()};
    static final int[] tallies = new int[3];

    static void add(int which, int n) {
        Lock lock = locks[which];
        lock.lock();
        try {
            tallies[which] += n;
        } finally {
            lock.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Runnable evens = () -> {
            for (int i = 0; i < 6; i += 2) {
                for (int k = 0; k < 3; k++) add(k, i);
            }
        };
        Runnable odds = () -> {
            for (int i = 1; i < 6; i += 2) {
                for (int k = 2; k >= 0; k--) add(k, i);
            }
        };
        Thread a = new Thread(evens);
        Thread b = new Thread(odds);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("tallies " + tallies[0] + " " + tallies[1] + " " + tallies[2]);
        for (int t : tallies) {
            if (t != 15) throw new IllegalStateException("tally " + t);
        }
    }
}
