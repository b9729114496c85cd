package threadstripedhits;

/** Counts hits per stripe to keep threads apart; the total shares the caller's stripe lock. */
public class Main {
    static final Object[] locks = {new Object(), new Object(), new Object(), new Object()};
    static final int[] hits = new int[locks.length];
    static int total;

    static void hit() {
        int stripe = (Thread.currentThread().hashCode() & 0x7fffffff) % locks.length;
        synchronized (locks[stripe]) {
            hits[stripe]++;
            total++;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Runnable visitor = () -> {
            for (int i = 0; i < 2; i++) {
                hit();
            }
        };
        Thread first = new Thread(visitor);
        Thread second = new Thread(visitor);
        first.start();
        second.start();
        first.join();
        second.join();
        int sum = 0;
        for (int h : hits) {
            sum += h;
        }
        if (sum != total) {
            throw new AssertionError("stripes counted " + sum + " hits, the total says " + total);
        }
        System.out.println(total + " hits");
    }
}
