/** Three threads increment a counter under one lock: never a bug. */
public class SyncCounter {
    static int count;
    static final Object LOCK = new Object();

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[3];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 5; k++) {
                    synchronized (LOCK) {
                        int c = count;
                        count = c + 1;
                    }
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        assert count == 15 : "count = " + count;
    }
}
