package synchashset;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * SyncHashSet: two thread-safe sets with the same elements; pairs of threads compare them,
 * one as {@code a.equals(b)} and the other as {@code b.equals(a)}. Every comparison must say
 * "equal". In the spirit of the synchronized JDK 1.4.2 HashSet that the RankChecker paper tests.
 *
 * <p>Failing interleaving (one preemption, two threads): thread A, in {@code a.equals(b)}, holds
 * a's lock and is preempted before taking b's (in {@code b.size()}); thread B, in
 * {@code b.equals(a)}, takes b's lock and blocks on a's; A blocks on b's: a deadlock.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (comparing threads 2, 10, 200; elements 4,
 * 16, 64).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int threads;
        int elements;
        switch (level) {
            case "little" -> { threads = 2; elements = 4; }
            case "average" -> { threads = 10; elements = 16; }
            case "lot" -> { threads = 200; elements = 64; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        SyncSet a = new SyncSet();
        SyncSet b = new SyncSet();
        for (int i = 0; i < elements; i++) {
            a.add(i * 7);
            b.add((elements - 1 - i) * 7);
        }
        Comparer[] comparers = new Comparer[threads];
        for (int i = 0; i < threads; i++) {
            comparers[i] = i % 2 == 0 ? new Comparer(i, a, b, 2) : new Comparer(i, b, a, 2);
            comparers[i].start();
        }
        int equal = 0;
        for (Comparer c : comparers) {
            c.join();
            equal += c.equal();
        }
        boolean ok = equal == 2 * threads;
        String verdict = ok
                ? "SyncHashSet: OK " + equal + " comparisons, all equal"
                : "SyncHashSet: BUG " + equal + " of " + 2 * threads + " comparisons said equal";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
