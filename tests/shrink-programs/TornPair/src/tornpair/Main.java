package tornpair;

import java.util.ArrayList;
import java.util.List;

/**
 * Twenty writers set a pair of fields one after the other without a lock; a reader started
 * last reads the pair and checks that {@code second} is never ahead of {@code first}.
 *
 * <p>The reader sees {@code second} ahead when it reads {@code first} before any writer wrote
 * it and {@code second} after some writer wrote both. Main starts every thread and then joins the
 * first writer, so which thread runs then is a free choice; choosing the reader, one
 * preemption of it between its two reads is enough: (c, v, t) = (1, 1, 2). A search that
 * lets the writers run first needs a preemption of each writer that starts before the reader
 * reads.
 */
public class Main {
    static int first;
    static int second;

    public static void main(String[] args) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            threads.add(new Thread(() -> {
                first = 1;
                second = 1;
            }));
        }
        threads.add(new Thread(() -> {
            int a = first;
            int b = second;
            if (b > a) {
                throw new IllegalStateException("second ahead of first: first=" + a + ", second=" + b);
            }
        }));
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("pair: " + first + ", " + second);
    }
}
