package relay;

public class Main {
    static final int THREADS = 50;
    static final int ROUNDS = 2;

    private final Object lock = new Object();
    private int holder;
    private int passes;

    void runner(int me) throws InterruptedException {
        for (int round = 0; round < ROUNDS; round++) {
            synchronized (lock) {
                while (holder != me) {
                    lock.wait();
                }
                passes++;
                holder = (me + 1) % THREADS;
                lock.notifyAll();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main ring = new Main();
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            final int me = i;
            threads[i] = new Thread(() -> {
                try {
                    ring.runner(me);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        synchronized (ring.lock) {
            if (ring.passes != THREADS * ROUNDS) {
                throw new AssertionError("token passed " + ring.passes + " times");
            }
        }
        System.out.println("passes " + ring.passes);
    }
}
