package linkedlist;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * LinkedList: a linked-list implementation with a test harness. The harness first checks the
 * list's sequential behaviour (a seeded mix of operations against java.util.ArrayList, one
 * thread); then two threads append disjoint ranges of numbers to one shared list, and the harness
 * checks that every number is in the list and that the node count and the size agree with the
 * number of appends.
 *
 * <p>Failing interleaving (one preemption, two threads): appender A reads {@code tail} and is
 * preempted before linking its node (at its write of {@code head}, or of the old tail's
 * {@code next}); appender B appends; A resumes and links its node to the same place, cutting B's
 * node out of the list.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (appends per thread 1, 10, 1000; the
 * sequential self-test makes 20 operations per append).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int perThread = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 1;
            case "average" -> 10;
            case "lot" -> 1000;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        String selfTest = SelfTest.run(20 * perThread, 7);
        if (selfTest != null) {
            String verdict = "LinkedList: BUG sequential self-test: " + selfTest;
            System.out.println(verdict);
            throw new AssertionError(verdict);
        }
        IntList list = new IntList();
        Appender[] appenders = {new Appender(list, 0, perThread), new Appender(list, perThread, perThread)};
        for (Appender a : appenders) {
            a.start();
        }
        for (Appender a : appenders) {
            a.join();
        }
        int total = 2 * perThread;
        String problem = null;
        if (list.countNodes() != total || list.size() != total) {
            problem = list.countNodes() + " nodes and size " + list.size() + " after " + total + " appends";
        }
        for (int v = 0; v < total && problem == null; v++) {
            if (!list.contains(v)) {
                problem = v + " is missing";
            }
        }
        String verdict = problem == null ? "LinkedList: OK " + total + " nodes" : "LinkedList: BUG " + problem;
        if (problem != null && total <= 20) {
            verdict += " " + list;
        }
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
