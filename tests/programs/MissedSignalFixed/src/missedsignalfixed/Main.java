package missedsignalfixed;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * MissedSignal with the await in a loop over the state: the consumer awaits only while no value
 * has arrived, so an early signal is harmless, and a spurious wake-up only costs another check.
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
                while (value == null) { // the state, not the signal, says whether to wait
                    arrived.await();
                }
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
        if (!"ready".equals(got)) {
            throw new AssertionError("got " + got);
        }
        System.out.println("got " + got);
    }
}
