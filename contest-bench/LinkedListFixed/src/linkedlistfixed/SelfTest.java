package linkedlistfixed;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The single-threaded part of the test harness: a seeded run of mixed list operations on a fresh
 * list, each checked against {@link java.util.ArrayList}. It exercises the list's sequential
 * behaviour before the concurrent part of the test and must always pass.
 */
final class SelfTest {
    private SelfTest() {}

    /** Runs {@code steps} operations; returns a description of the first mismatch, or null. */
    static String run(int steps, long seed) {
        IntList list = new IntList();
        List<Integer> model = new ArrayList<>();
        Random ops = new Random(seed);
        for (int step = 0; step < steps; step++) {
            int value = ops.nextInt(20);
            switch (ops.nextInt(6)) {
                case 0, 1 -> {
                    list.append(value);
                    model.add(value);
                }
                case 2 -> {
                    int at = ops.nextInt(model.size() + 1);
                    list.insert(at, value);
                    model.add(at, value);
                }
                case 3 -> {
                    boolean removed = list.removeFirst(value);
                    if (removed != model.remove(Integer.valueOf(value))) {
                        return "step " + step + ": removeFirst(" + value + ") said " + removed;
                    }
                }
                case 4 -> {
                    if (list.indexOf(value) != model.indexOf(value)) {
                        return "step " + step + ": indexOf(" + value + ") is " + list.indexOf(value);
                    }
                    if (!model.isEmpty()) {
                        int at = ops.nextInt(model.size());
                        if (list.get(at) != model.get(at)) {
                            return "step " + step + ": get(" + at + ") is " + list.get(at);
                        }
                    }
                }
                default -> {
                    list.reverse();
                    java.util.Collections.reverse(model);
                }
            }
            if (list.size() != model.size() || list.countNodes() != model.size()) {
                return "step " + step + ": size " + list.size() + " instead of " + model.size();
            }
        }
        int[] expected = model.stream().mapToInt(Integer::intValue).toArray();
        if (!Arrays.equals(list.toArray(), expected)) {
            return "contents " + list + " instead of " + model;
        }
        // Appending after a reverse or a removal at the end must still link at the real tail.
        list.append(99);
        return list.get(list.size() - 1) == 99 && list.countNodes() == model.size() + 1
                ? null
                : "append after the mixed operations lost the node";
    }
}
