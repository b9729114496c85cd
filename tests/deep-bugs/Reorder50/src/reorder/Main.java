package reorder;

import java.util.ArrayList;
import java.util.List;

public class Main {
    static int a;
    static int b;

    public static void main(String[] args) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 49; i++) {
            threads.add(new Thread(() -> {
                a = 1;
                b = -1;
            }));
        }
        threads.add(new Thread(() -> {
            int x = a;
            int y = b;
            if (!((x == 0 && y == 0) || (x == 1 && y == -1))) {
                throw new AssertionError("saw a = " + x + ", b = " + y);
            }
        }));
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("done");
    }
}
