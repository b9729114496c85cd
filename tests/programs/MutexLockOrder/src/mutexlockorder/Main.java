package mutexlockorder;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/** Stock moved between two warehouses, each with its own mutex. */
public class Main {
    /** A non-reentrant mutex: state 0 is free, 1 is held. */
    static final class Mutex {
        private static final class Sync extends AbstractQueuedSynchronizer {
            @Override
            protected boolean tryAcquire(int ignored) {
                if (compareAndSetState(0, 1)) {
                    setExclusiveOwnerThread(Thread.currentThread());
                    return true;
                }
                return false;
            }

            @Override
            protected boolean tryRelease(int ignored) {
                if (getState() == 0) throw new IllegalMonitorStateException();
                setExclusiveOwnerThread(null);
                setState(0);
                return true;
            }
        }

        private final Sync sync = new Sync();

        void lock() {
            sync.acquire(1);
        }

        void unlock() {
            sync.release(1);
        }
    }

    /** The two warehouses' stock, each guarded by its own mutex. */
    static final Mutex NORTH = new Mutex();
    static final Mutex SOUTH = new Mutex();
    static int north = 100;
    static int south = 100;

    static void northToSouth(int amount) {
        NORTH.lock();
        try {
            SOUTH.lock();
            try {
                north -= amount;
                south += amount;
            } finally {
                SOUTH.unlock();
            }
        } finally {
            NORTH.unlock();
        }
    }

    static void southToNorth(int amount) {
        SOUTH.lock();
        try {
            NORTH.lock();
            try {
                south -= amount;
                north += amount;
            } finally {
                NORTH.unlock();
            }
        } finally {
            SOUTH.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(() -> northToSouth(10));
        Thread b = new Thread(() -> southToNorth(20));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("north " + north + ", south " + south);
        if (north + south != 200) throw new IllegalStateException("stock lost");
    }
}
