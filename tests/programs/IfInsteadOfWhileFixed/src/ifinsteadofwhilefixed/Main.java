package ifinsteadofwhilefixed;

/**
 * IfInsteadOfWhile with the wait in take() guarded by {@code while}: a consumer re-checks the
 * slot after every wake-up (including spurious ones), so it never takes from an empty slot. Two
 * puts and two takes with notifyAll after each change: nobody is left waiting.
 */
public class Main {
    static final class Slot {
        private Integer item; // null when empty

        synchronized void put(int value) throws InterruptedException {
            while (item != null) {
                wait();
            }
            item = value;
            notifyAll();
        }

        synchronized int take() throws InterruptedException {
            while (item == null) { // re-checked after every wake-up, spurious ones included
                wait();
            }
            Integer value = item;
            if (value == null) {
                throw new AssertionError(Thread.currentThread().getName() + " took from an empty slot");
            }
            item = null;
            notifyAll();
            return value;
        }
    }

    static final Slot slot = new Slot();
    static final int[] taken = new int[2];

    public static void main(String[] args) throws InterruptedException {
        Thread[] consumers = new Thread[2];
        for (int i = 0; i < consumers.length; i++) {
            final int me = i;
            consumers[i] = new Thread(() -> taken[me] = uninterrupted(slot::take), "consumer-" + i);
            consumers[i].start();
        }
        Thread producer = new Thread(() -> {
            for (int v = 1; v <= 2; v++) {
                final int item = v;
                uninterrupted(() -> {
                    slot.put(item);
                    return 0;
                });
            }
        }, "producer");
        producer.start();
        producer.join();
        for (Thread c : consumers) {
            c.join();
        }
        if (taken[0] + taken[1] != 3) {
            throw new AssertionError("consumers took " + taken[0] + " and " + taken[1]);
        }
        System.out.println("took " + taken[0] + " and " + taken[1]);
    }

    interface Blocking {
        int run() throws InterruptedException;
    }

    static int uninterrupted(Blocking step) {
        try {
            return step.run();
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts in this program", e);
        }
    }
}
