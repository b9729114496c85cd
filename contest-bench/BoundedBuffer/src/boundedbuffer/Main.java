package boundedbuffer;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * BoundedBuffer: producers and consumers share a bounded buffer that signals with
 * {@code notify} instead of {@code notifyAll}; every item produced must be consumed.
 *
 * <p>Failing interleaving (no preemption, three threads; capacity 1, one producer of two items,
 * two consumers of one item each): both consumers wait on the empty buffer; the producer puts the
 * first item, its notify wakes consumer A, and it waits on the full buffer for the second; A takes
 * the item and its notify wakes consumer B instead of the producer; B finds the buffer empty and
 * waits again. The producer and B wait for each other forever: a deadlock. Every switch is forced
 * by a thread waiting or ending; which waiter a notify wakes is the scheduler's choice.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (producers/consumers/capacity 1/2/1, 2/2/1,
 * 3/3/2; each producer makes twice as many items as each consumer takes, times 1/10/100).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int producers;
        int consumers;
        int capacity;
        int scale;
        switch (level) {
            case "little" -> { producers = 1; consumers = 2; capacity = 1; scale = 1; }
            case "average" -> { producers = 2; consumers = 4; capacity = 1; scale = 10; }
            case "lot" -> { producers = 3; consumers = 6; capacity = 2; scale = 100; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        BoundedBuffer buffer = new BoundedBuffer(capacity);
        Consumer[] eaters = new Consumer[consumers];
        Thread[] all = new Thread[producers + consumers];
        for (int c = 0; c < consumers; c++) {
            eaters[c] = new Consumer(c, buffer, scale);
            all[c] = eaters[c];
        }
        for (int p = 0; p < producers; p++) {
            all[consumers + p] = new Producer(p, buffer, 2 * scale);
        }
        for (Thread t : all) {
            t.start();
        }
        int taken = 0;
        for (Thread t : all) {
            t.join();
        }
        for (Consumer c : eaters) {
            taken += c.taken();
        }
        int made = producers * 2 * scale;
        boolean ok = taken == made;
        String verdict = ok
                ? "BoundedBuffer: OK " + taken + " items passed through"
                : "BoundedBuffer: BUG " + taken + " of " + made + " items consumed";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
