package notifyinsteadofnotifyallfixed;

/**
 * NotifyInsteadOfNotifyAll with notifyAll: after every change of the slot all waiters re-check
 * their own condition. A waiting consumer means the slot is empty, a waiting producer means it is
 * full, and with two puts and two takes neither can wait once the other side is done, so nobody
 * waits forever (spurious wake-ups only cause another check).
 */
public class Main {
    static final class Slot {
        private Integer item; // null when empty

        synchronized void put(int value) throws InterruptedException {
            while (item != null) {
                wait();
            }
            item = value;
            notifyAll(); // every waiter re-checks its own condition
        }

        synchronized int take() throws InterruptedException {
            while (item == null) {
                wait();
            }
            int value = item;
            item = null;
            notifyAll(); // every waiter re-checks its own condition
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
