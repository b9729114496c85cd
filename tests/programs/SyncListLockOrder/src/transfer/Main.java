package transfer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Moves items between two synchronized lists, each mover locking its source list first. */
public class Main {
    static void move(List<Integer> from, List<Integer> to) {
        synchronized (from) {
            if (!from.isEmpty()) {
                to.add(from.remove(0));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        List<Integer> left = Collections.synchronizedList(new ArrayList<>(List.of(1, 2)));
        List<Integer> right = Collections.synchronizedList(new ArrayList<>(List.of(3)));
        Thread a = new Thread(() -> move(left, right));
        Thread b = new Thread(() -> move(right, left));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("left " + left + ", right " + right);
    }
}
