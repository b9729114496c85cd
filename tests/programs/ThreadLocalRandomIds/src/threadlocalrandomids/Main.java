package threadlocalrandomids;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Two unnamed threads each make a request id with ThreadLocalRandom and append it to a shared
 * log. The buggy append reads the size, stores the id and writes the size back as three separate
 * steps: both threads can take slot 0. (c, v, t) = (1, 1, 2). Main's message prints the ids.
 */
public class Main {
    static final long[] log = new long[4];
    static int size;
    static final long[] made = new long[2];

    static void append(long id) {
        int slot = size;
        log[slot] = id;
        size = slot + 1;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] ts = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int k = i;
            ts[i] = new Thread(() -> {
                long id = ThreadLocalRandom.current().nextLong(1_000_000_000L);
                made[k] = id;
                append(id);
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (size != 2) {
            throw new IllegalStateException("requests " + made[0] + " and " + made[1]
                    + " but the log holds " + Arrays.toString(Arrays.copyOf(log, size)));
        }
        System.out.println("logged " + size + " requests");
    }
}
