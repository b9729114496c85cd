/** 1,000 threads, each adding one under a lock. */
public class ThousandThreads {
    static int count;
    static final Object LOCK = new Object();

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new Thread(() -> {
                synchronized (LOCK) {
                    count++;
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("count=" + count);
        assert count == n : "count = " + count;
    }
}
