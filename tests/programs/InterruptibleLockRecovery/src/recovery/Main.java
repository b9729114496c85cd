package recovery;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/** Two jobs that may deadlock on their locks, and a supervisor that breaks the deadlock. */
public class Main {
    static final ReentrantLock left = new ReentrantLock();
    static final ReentrantLock right = new ReentrantLock();
    static final AtomicInteger done = new AtomicInteger();

    static void job(ReentrantLock first, ReentrantLock second) {
        try {
            first.lockInterruptibly();
            try {
                second.lockInterruptibly();
                try {
                    done.incrementAndGet();
                } finally {
                    second.unlock();
                }
            } finally {
                first.unlock();
            }
        } catch (InterruptedException e) {
            // Asked to back off: take both again, in the one safe order.
            left.lock();
            try {
                right.lock();
                try {
                    done.incrementAndGet();
                } finally {
                    right.unlock();
                }
            } finally {
                left.unlock();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread one = new Thread(() -> job(left, right));
        Thread two = new Thread(() -> job(right, left));
        one.start();
        two.start();
        one.join(1000);
        two.join(1000);
        for (Thread t : new Thread[] {one, two}) {
            if (t.isAlive()) {
                t.interrupt();
            }
        }
        one.join();
        two.join();
        if (done.get() != 2) {
            throw new AssertionError("jobs done: " + done.get());
        }
        System.out.println("both jobs done");
    }
}
