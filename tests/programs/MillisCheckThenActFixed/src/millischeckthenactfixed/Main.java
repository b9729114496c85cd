package millischeckthenactfixed;

/**
 * A limiter holds one token; two unnamed threads each try to take it. The buggy {@code tryTake}
 * checks and decrements without a lock: both threads can pass the check, and the second
 * decrement drives the count below zero (or both write 0 and both get it). (c, v, t) =
 * (1, 1, 2). The thread that overdraws notes the wall clock; main's message prints the times.
 */
public class Main {
    static int tokens = 1;
    static long overdrawnAt = -1;

    static synchronized boolean tryTake() {
        if (tokens > 0) {
            int left = tokens - 1;
            tokens = left;
            if (left < 0) {
                overdrawnAt = System.currentTimeMillis();
            }
            return true;
        }
        return false;
    }

    public static void main(String[] args) throws InterruptedException {
        long start = System.currentTimeMillis();
        boolean[] got = new boolean[2];
        Thread a = new Thread(() -> got[0] = tryTake());
        Thread b = new Thread(() -> got[1] = tryTake());
        a.start();
        b.start();
        a.join();
        b.join();
        if (overdrawnAt >= 0) {
            throw new IllegalStateException("token overdrawn at " + overdrawnAt + " ms (started at "
                    + start + " ms): tokens = " + tokens);
        }
        if (got[0] && got[1]) {
            throw new IllegalStateException("one token granted twice between " + start + " and "
                    + System.currentTimeMillis() + " ms");
        }
        System.out.println("granted once, tokens = " + tokens);
    }
}
