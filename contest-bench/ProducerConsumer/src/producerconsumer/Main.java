package producerconsumer;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * ProducerConsumer: producers put numbered items into a bounded channel and close it when done;
 * consumers take items until the channel is closed and empty. Every item must be consumed once.
 *
 * <p>Failing interleaving (no preemption, three threads): both consumers see the channel open
 * and wait in {@code take}; the producer puts its items (blocking on the full channel in between),
 * closes the channel and ends; one consumer takes the last item and leaves; the other is still in
 * {@code take}, where it waits forever: a deadlock (main waits for it in {@code join}). Every switch
 * is forced by a thread blocking or ending. With one consumer the same hang needs one preemption
 * (the producer switched out between its last put and closing).
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (producers/consumers/items each/capacity
 * 1/2/2/1, 2/2/10/2, 3/3/100/4).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int producers;
        int consumers;
        int items;
        int capacity;
        switch (level) {
            case "little" -> { producers = 1; consumers = 2; items = 2; capacity = 1; }
            case "average" -> { producers = 2; consumers = 2; items = 10; capacity = 2; }
            case "lot" -> { producers = 3; consumers = 3; items = 100; capacity = 4; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Channel channel = new Channel(capacity, producers);
        Consumer[] eaters = new Consumer[consumers];
        for (int c = 0; c < consumers; c++) {
            eaters[c] = new Consumer(c, channel);
            eaters[c].start();
        }
        Producer[] makers = new Producer[producers];
        for (int p = 0; p < producers; p++) {
            makers[p] = new Producer(p, channel, 1 + p * items, items);
            makers[p].start();
        }
        for (Producer p : makers) {
            p.join();
        }
        long sum = 0;
        int taken = 0;
        for (Consumer c : eaters) {
            c.join();
            sum += c.sum();
            taken += c.taken();
        }
        long n = (long) producers * items;
        boolean ok = taken == n && sum == n * (n + 1) / 2;
        String verdict = ok
                ? "ProducerConsumer: OK consumed " + taken + " items"
                : "ProducerConsumer: BUG consumed " + taken + " of " + n + " items (sum " + sum + ")";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
