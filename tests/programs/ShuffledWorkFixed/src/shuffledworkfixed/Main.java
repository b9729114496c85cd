package shuffledworkfixed;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Main shuffles the task numbers 1..4 (Collections.shuffle with the JDK's own unseeded Random)
 * and two unnamed workers take tasks in that order through a shared index. The buggy take reads
 * the index and writes it back in two steps: a preemption in between lets both workers take the
 * same task. (c, v, t) = (1, 1, 2). Main's message prints the task and the shuffled order.
 */
public class Main {
    static List<Integer> tasks;
    static int next;
    static final int[] takenBy = new int[5];

    static synchronized int take() {
        int i = next;
        if (i >= tasks.size()) {
            return -1;
        }
        next = i + 1;
        return tasks.get(i);
    }

    public static void main(String[] args) throws InterruptedException {
        List<Integer> order = new ArrayList<>();
        for (int t = 1; t <= 4; t++) {
            order.add(t);
        }
        Collections.shuffle(order);
        tasks = order;
        Runnable worker = () -> {
            for (int t = take(); t > 0; t = take()) {
                synchronized (takenBy) {
                    takenBy[t]++;
                }
            }
        };
        Thread a = new Thread(worker);
        Thread b = new Thread(worker);
        a.start();
        b.start();
        a.join();
        b.join();
        for (int t = 1; t <= 4; t++) {
            if (takenBy[t] != 1) {
                throw new IllegalStateException("task " + t + " taken " + takenBy[t]
                        + " times; order " + order);
            }
        }
        System.out.println("every task taken once");
    }
}
