package processorscounter;

/**
 * Starts one unnamed worker per available processor (at most 4), each adding 1 to a shared
 * counter; main checks that every worker counted. The buggy increment is a read and a separate
 * write, so with two or more workers one preemption at {@code counted} loses a count: (c, v, t)
 * = (1, 1, 2).
 */
public class Main {
    static int counted;

    static void count() {
        int seen = counted;
        counted = seen + 1;
    }

    public static void main(String[] args) throws InterruptedException {
        int processors = Runtime.getRuntime().availableProcessors();
        int workers = Math.min(4, processors);
        Thread[] threads = new Thread[workers];
        for (int i = 0; i < workers; i++) {
            threads[i] = new Thread(Main::count);
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (counted != workers) {
            throw new IllegalStateException("only " + counted + " of " + workers
                    + " workers counted (one per processor, " + processors + " processors)");
        }
        System.out.println(workers + " workers counted");
    }
}
