package bubblesortfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * BubbleSortFixed: one sorter thread per bubble pass works on a shared descending array (which needs
 * exactly one pass per sorter); the main thread waits for the sorters and checks the result.
 *
 * <p>Fixed variant: main joins every sorter before it checks the array.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (sorters 2, 4, 8).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int sorters = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 2;
            case "average" -> 4;
            case "lot" -> 8;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        SharedArray array = new SharedArray(sorters + 1);
        Sorter[] workers = new Sorter[sorters];
        for (int i = 0; i < sorters; i++) {
            workers[i] = new Sorter(i, array);
            workers[i].start();
        }
        for (Sorter w : workers) {
            w.join();
        }
        boolean ok = array.isSorted();
        String verdict = ok
                ? "BubbleSort: OK sorted " + array.show()
                : "BubbleSort: BUG checked before every pass was done: " + array.show();
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
