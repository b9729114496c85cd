package mergesortfixed;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Random;

/**
 * MergeSortFixed: a parallel merge sort that may start at most a budgeted number of helper threads;
 * afterwards the array must be sorted and the budget respected.
 *
 * <p>Fixed variant: {@code ThreadBudget.tryTake} is synchronized, so the budget is never
 * overdrawn.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (elements/helpers 8/2, 256/9, 4096/99).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int size;
        int helpers;
        switch (level) {
            case "little" -> { size = 8; helpers = 2; }
            case "average" -> { size = 256; helpers = 9; }
            case "lot" -> { size = 4096; helpers = 99; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        int[] data = new int[size];
        Random input = new Random(42);
        for (int i = 0; i < size; i++) {
            data[i] = input.nextInt(1000);
        }
        ThreadBudget budget = new ThreadBudget(helpers);
        new ParallelMergeSort(data, budget, 4).sort();
        String problem = null;
        for (int i = 0; i + 1 < size && problem == null; i++) {
            if (data[i] > data[i + 1]) {
                problem = "not sorted at " + i;
            }
        }
        if (problem == null && budget.taken() > budget.limit()) {
            problem = "thread budget overdrawn: " + budget.taken() + " helpers for a budget of " + budget.limit();
        }
        String verdict = problem == null
                ? "MergeSort: OK sorted " + size + " with " + budget.taken() + " helpers"
                : "MergeSort: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
