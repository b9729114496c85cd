package ifinsteadofwhile;

/**
 * A one-place slot shared by one producer (puts 2 items) and two consumers (take 1 each).
 * {@code take} guards its wait with {@code if} instead of {@code while}.
 *
 * <p>A failing interleaving exists without any spurious wake-up and without a preemption:
 * consumer 1 finds the slot empty and waits; consumer 2 does the same; the producer puts item 1,
 * notifyAll wakes both consumers, then the producer finds the slot full and waits; consumer 1
 * re-acquires the monitor, takes item 1 and ends; consumer 2 re-acquires the monitor and, not
 * re-checking, takes from the empty slot. Every switch happens where a thread blocks or ends, so
 * c = 0; the order of the three threads matters: (c, v, t) = (0, 0, 3). (With spurious wake-ups
 * enabled, one consumer alone can also fail.)
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
            if (item == null) { // BUG: another consumer may empty the slot before we run again
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
