package bubblesort2fixed;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Arrays;

/**
 * BubbleSort2Fixed: as many threads as the array needs bubble passes race over one shared array, each
 * making one locked pass; main joins them all and checks that the array is sorted and
 * still holds the same numbers.
 *
 * <p>Fixed variant: each pass holds the array's lock, so the passes run one after another and
 * always sort the array.
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
