package bubblesort2;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Arrays;

/**
 * BubbleSort2: as many threads as the array needs bubble passes race over one shared array, each
 * making one unsynchronized pass; main joins them all and checks that the array is sorted and
 * still holds the same numbers.
 *
 * <p>Failing interleaving (one preemption, at the array, two threads), for {3, 2, 1}: passer A
 * sees 3 > 2, writes data[0] = 2 and is preempted before writing data[1] = 3; passer B's whole pass
 * turns {2, 2, 1} into {2, 1, 2}; A resumes, writes data[1] = 3 (the 1 is lost) and finishes with
 * {2, 2, 3}: a number was duplicated.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (passers 2, 10, 100).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int passers = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 2;
            case "average" -> 10;
            case "lot" -> 100;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        // Descending 1..n+1: n passes sort it when they do not overlap.
        int[] data = new int[passers + 1];
        for (int i = 0; i < data.length; i++) {
            data[i] = data.length - i;
        }
        Thread[] workers = new Thread[passers];
        for (int i = 0; i < passers; i++) {
            workers[i] = new Passer(i, data);
            workers[i].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        String problem = null;
        for (int i = 0; i < data.length && problem == null; i++) {
            if (data[i] != i + 1) {
                problem = "element " + i + " is " + data[i] + " instead of " + (i + 1);
            }
        }
        String verdict = problem == null
                ? "BubbleSort2: OK " + Arrays.toString(data)
                : "BubbleSort2: BUG " + problem + ": " + Arrays.toString(data);
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
