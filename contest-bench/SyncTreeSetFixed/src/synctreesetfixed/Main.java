package synctreesetfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * SyncTreeSetFixed: merger threads copy a thread-safe sorted set into another with {@code addAll}
 * while adder threads add new elements to the set being copied. The merges must not fail, and
 * the target must end up with every element the source had at the start. In the spirit of the
 * synchronized JDK 1.4.2 TreeSet that the RankChecker paper tests.
 *
 * <p>Fixed variant: {@code addAll} copies the source under the source's lock and then adds the
 * copy under the target's lock, so the walk never sees a concurrent change.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (mergers + adders 1+1, 4+4, 100+100; source
 * elements 2, 8, 32).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int pairs;
        int elements;
        switch (level) {
            case "little" -> { pairs = 1; elements = 2; }
            case "average" -> { pairs = 4; elements = 8; }
            case "lot" -> { pairs = 100; elements = 32; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        SyncSortedSet target = new SyncSortedSet();
        SyncSortedSet source = new SyncSortedSet();
        int[] initial = new int[elements];
        for (int i = 0; i < elements; i++) {
            initial[i] = ((i * 5 + 1) % elements) * 10; // a scrambled order keeps the tree shallow
            source.add(initial[i]);
        }
        target.add(-1);
        Thread[] threads = new Thread[2 * pairs];
        for (int i = 0; i < pairs; i++) {
            threads[2 * i] = new Merger(i, target, source, 1);
            threads[2 * i + 1] = new Adder(i, source, 10 * elements + i, pairs, 1);
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        String problem = null;
        for (int k : initial) {
            if (!target.contains(k)) {
                problem = "element " + k + " of the source is missing from the target";
                break;
            }
        }
        String verdict = problem == null
                ? "SyncTreeSet: OK target holds " + target.size() + " elements"
                : "SyncTreeSet: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
