package synchronizedincrements;

/** Two unnamed threads each increment a shared counter 30,000 times under a lock. */
public class Main {
    static final Object LOCK = new Object();
    static int count;

    public static void main(String[] args) throws InterruptedException {
        Runnable adder = () -> {
            for (int i = 0; i < 30_000; i++) {
                synchronized (LOCK) {
                    count++;
                }
            }
        };
        Thread a = new Thread(adder);
        Thread b = new Thread(adder);
        a.start();
        b.start();
        a.join();
        b.join();
        if (count != 60_000) {
            throw new IllegalStateException("count " + count);
        }
        System.out.println("count " + count);
    }
}
