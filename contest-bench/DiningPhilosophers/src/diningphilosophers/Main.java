package diningphilosophers;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * DiningPhilosophers: philosophers sit round a table with one fork between each two neighbours;
 * each eats a few meals, picking up the left fork and then the right one.
 *
 * <p>Failing interleaving (one preemption, all n threads): philosopher 0 takes its left fork and
 * is preempted before taking the right one; philosopher n-1 takes its left fork, and its next step
 * (philosopher 0's fork) cannot go on, so switching to philosopher n-2 is free; it takes its left
 * fork and is stuck the same way; and so on down to philosopher 1, whose right fork is held by
 * philosopher 2. Now philosopher 0 wants philosopher 1's fork: a cycle of waits, a deadlock.
 * Only the first switch is a preemption; every later one leaves a thread that cannot proceed.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (philosophers/meals 3/1, 5/10, 8/200).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int seats;
        int meals;
        switch (level) {
            case "little" -> { seats = 3; meals = 1; }
            case "average" -> { seats = 5; meals = 10; }
            case "lot" -> { seats = 8; meals = 200; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Fork[] forks = new Fork[seats];
        for (int i = 0; i < seats; i++) {
            forks[i] = new Fork(i);
        }
        Philosopher[] table = new Philosopher[seats];
        for (int i = 0; i < seats; i++) {
            table[i] = new Philosopher(i, forks[i], forks[(i + 1) % seats], meals);
            table[i].start();
        }
        int eaten = 0;
        for (Philosopher p : table) {
            p.join();
            eaten += p.eaten();
        }
        int uses = 0;
        for (Fork f : forks) {
            uses += f.uses();
        }
        boolean ok = eaten == seats * meals && uses == 2 * eaten;
        String verdict = ok
                ? "DiningPhilosophers: OK " + eaten + " meals"
                : "DiningPhilosophers: BUG " + eaten + " meals and " + uses + " fork uses";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
