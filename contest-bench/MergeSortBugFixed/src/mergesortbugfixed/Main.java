package mergesortbugfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * MergeSortBugFixed: a parallel merge sort that keeps at most a given number of helper threads
 * running, counting them in a shared counter; when the sort is done the count must be back to 0.
 *
 * <p>Fixed variant: a helper takes itself off the count under the counter's lock, so the count
 * always returns to 0.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (elements/helpers 8/2, 128/4, 2048/28).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int size;
        int maxHelpers;
        switch (level) {
            case "little" -> { size = 8; maxHelpers = 2; }
            case "average" -> { size = 128; maxHelpers = 4; }
            case "lot" -> { size = 2048; maxHelpers = 28; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        // A fixed scrambled permutation of 0..size-1 (stride coprime to size).
        int[] data = new int[size];
        for (int i = 0; i < size; i++) {
            data[i] = (int) ((i * 5L + 3) % size);
        }
        HelperCount helpers = new HelperCount(maxHelpers);
        new Sorter(data, new int[size], helpers, 4).sort(0, size);
        String problem = null;
        for (int i = 0; i < size && problem == null; i++) {
            if (data[i] != i) {
                problem = "element " + i + " is " + data[i];
            }
        }
        if (problem == null && helpers.active() != 0) {
            problem = "helper count leaked: " + helpers.active() + " still counted after " + helpers.started()
                    + " helpers finished";
        }
        String verdict = problem == null
                ? "MergeSortBug: OK sorted " + size + " with " + helpers.started() + " helpers"
                : "MergeSortBug: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
