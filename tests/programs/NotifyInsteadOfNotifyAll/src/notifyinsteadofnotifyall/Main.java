package notifyinsteadofnotifyall;

/**
 * A one-place slot shared by one producer (puts 2 items) and two consumers (take 1 each); both
 * kinds wait on the same monitor, correctly in while loops, but wake one another with
 * {@code notify()} instead of {@code notifyAll()}.
 *
 * <p>A deadlocking interleaving exists without a preemption: both consumers find the slot empty
 * and wait (wait set: consumer 1, consumer 2); the producer puts item 1 and its notify wakes
 * consumer 1; the producer finds the slot full and waits (wait set: consumer 2, producer);
 * consumer 1 takes item 1 and its notify wakes consumer 2 (the wrong kind) instead of the
 * producer, then ends; consumer 2 finds the slot empty and waits again. The producer and consumer
 * 2 now wait for each other forever while main waits in join: a deadlock. The waiter chosen by
 * the second notify is the one that waited first (FIFO), so c = 0: (c, v, t) = (0, 0, 3).
 */
public class Main {
    static final class Slot {
        private Integer item; // null when empty

        synchronized void put(int value) throws InterruptedException {
            while (item != null) {
                wait();
            }
            item = value;
            notify(); // only consumers can be waiting here, so one wake-up is enough
        }

        synchronized int take() throws InterruptedException {
            while (item == null) {
                wait();
            }
            int value = item;
            item = null;
            notify(); // BUG: may wake the other consumer instead of the producer
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
