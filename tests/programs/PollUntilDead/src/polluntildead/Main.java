package polluntildead;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Main {
    public static void main(String[] args) {
        List<Integer> done = Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            Thread t = new Thread(() -> done.add(id));
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            while (t.isAlive()) {
                Thread.yield();
            }
        }
        if (done.size() != 3) {
            throw new IllegalStateException("only " + done + " finished");
        }
        // Only main is left.
        Thread[] left = new Thread[Thread.activeCount()];
        int n = Thread.enumerate(left);
        if (n != 1 || left[0] != Thread.currentThread()) {
            throw new IllegalStateException(n + " threads left");
        }
        System.out.println("all " + done.size() + " workers finished");
    }
}
