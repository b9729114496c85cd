package threadnamelostupdatefixed;

/** ThreadNameLostUpdate with the read-modify-write under one lock: hits is always 2. */
public class Main {
    static int hits;
    static final Object LOCK = new Object();

    public static void main(String[] args) throws InterruptedException {
        Runnable bump = () -> {
            int seen;
            synchronized (LOCK) {
                seen = hits;
                hits = seen + 1;
            }
            System.out.println(Thread.currentThread().getName() + " counted " + (seen + 1));
        };
        Thread a = new Thread(bump);
        Thread b = new Thread(bump);
        a.start();
        b.start();
        a.join();
        b.join();
        if (hits != 2) {
            throw new IllegalStateException(
                    "lost update by " + a.getName() + " and " + b.getName() + ": hits = " + hits);
        }
        System.out.println("hits = " + hits);
    }
}
