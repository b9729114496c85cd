package trackedaccesses;

/**
 * Four unnamed workers, each updating its own slot of a shared array while reading shared
 * static fields: about five tracked shared accesses per iteration, no data race. With the
 * default size, 4 x 5,000,000 iterations make about 10^8 accesses.
 */
public class Main {
    static final int WORKERS = 4;
    static int stride = 8; // read by every worker, written only before they start
    static long[] cells;

    public static void main(String[] args) throws InterruptedException {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        cells = new long[WORKERS * 8];
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            int me = w;
            workers[w] = new Thread(() -> {
                for (int i = 0; i < iterations; i++) {
                    int slot = me * stride;
                    cells[slot] = cells[slot] + (i ^ me);
                }
            });
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        long sum = 0;
        for (long c : cells) {
            sum += c;
        }
        System.out.println("sum " + sum);
    }
}
