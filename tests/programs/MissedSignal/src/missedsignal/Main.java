package missedsignal;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A hand-off of one value through a ReentrantLock and its Condition. The consumer awaits the
 * signal without first checking whether the value has already arrived.
 *
 * <p>A deadlocking interleaving exists: main starts the consumer but keeps running (it outranks
 * the consumer), offers the value and signals while nobody awaits, so the signal is lost; main
 * then joins the consumer, which awaits a signal that never comes. No preemption, two threads:
 * (c, v, t) = (0, 0, 2).
 */
public class Main {
    static final class Handoff {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition arrived = lock.newCondition();
        private String value;

        void offer(String v) {
            lock.lock();
            try {
                value = v;
                arrived.signal();
            } finally {
                lock.unlock();
            }
        }

        String take() throws InterruptedException {
            lock.lock();
            try {
                arrived.await(); // BUG: waits even if the value (and its signal) came already
                return value;
            } finally {
                lock.unlock();
            }
        }
    }

    static final Handoff handoff = new Handoff();
    static String got;

    public static void main(String[] args) throws InterruptedException {
        Thread consumer = new Thread(() -> {
            try {
                got = handoff.take();
            } catch (InterruptedException e) {
                throw new AssertionError("nobody interrupts in this program", e);
            }
        }, "consumer");
        consumer.start();
        handoff.offer("ready");
        consumer.join();
        System.out.println("got " + got);
    }
}
