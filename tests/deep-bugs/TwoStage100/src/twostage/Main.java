package twostage;

import java.util.ArrayList;
import java.util.List;

public class Main {
    private final Object firstLock = new Object();
    private final Object secondLock = new Object();
    private int first;
    private int second;

    void write(int value) {
        synchronized (firstLock) {
            first = value;
        }
        synchronized (secondLock) {
            second = value + 1;
        }
    }

    void check() {
        int f;
        synchronized (firstLock) {
            if (first == 0) {
                return;
            }
            f = first;
        }
        int s;
        synchronized (secondLock) {
            s = second;
        }
        if (s != f + 1) {
            throw new IllegalStateException("torn pair: first " + f + ", second " + s);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main pair = new Main();
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            final int value = i;
            threads.add(new Thread(() -> pair.write(value)));
            threads.add(new Thread(pair::check));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("checked");
    }
}
