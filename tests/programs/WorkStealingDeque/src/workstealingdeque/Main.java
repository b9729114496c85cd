package workstealingdeque;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A small work-stealing deque: its owner pops tasks from the bottom without a lock, a thief
 * steals from the top under the deque's monitor. Each task must run once.
 *
 * <p>The bug: {@code pop} checks that a task is left, then takes it, with nothing keeping a
 * steal out in between. With one task left, the owner passes its check, the thief steals that
 * task, and the owner takes it too. The owner has to run its whole first pop before the thief
 * steals anything, so a walk that switches between the two at every access rarely gets there.
 */
public class Main {
    static class Deque {
        final int[] tasks = new int[8];
        int top;
        int bottom;

        void push(int task) {
            tasks[bottom] = task;
            bottom++;
        }

        int pop() {
            if (bottom - top <= 0) {
                return -1;
            }
            bottom--;
            return tasks[bottom];
        }

        synchronized int steal() {
            if (bottom - top <= 0) {
                return -1;
            }
            int task = tasks[top];
            top++;
            return task;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Deque deque = new Deque();
        deque.push(1);
        deque.push(2);
        Set<Integer> ran = Collections.synchronizedSet(new HashSet<>());
        List<Integer> twice = Collections.synchronizedList(new ArrayList<>());
        Thread owner = new Thread(() -> {
            int task;
            while ((task = deque.pop()) != -1) {
                if (!ran.add(task)) {
                    twice.add(task);
                }
            }
        });
        Thread thief = new Thread(() -> {
            int task;
            while ((task = deque.steal()) != -1) {
                if (!ran.add(task)) {
                    twice.add(task);
                }
            }
        });
        owner.start();
        thief.start();
        owner.join();
        thief.join();
        System.out.println("ran " + ran);
        if (!twice.isEmpty()) {
            throw new IllegalStateException("task ran twice: " + twice);
        }
    }
}
