package threadnamelostupdate;

/**
 * Two unnamed worker threads each bump a shared counter with a plain read and write; main checks
 * the counter and names the workers, by their default names, in the failure message.
 *
 * <p>Bug: {@code hits = seen + 1} after a separate read of {@code hits}. Worker 1 reads 0 and is
 * preempted; worker 2 reads 0 and writes 1; worker 1 writes 1. One preemption at {@code hits}
 * between the two workers: (c, v, t) = (1, 1, 2). The message reads
 * "lost update by Thread-0 and Thread-1: hits = 1" in a fresh JVM.
 */
public class Main {
    static int hits;

    public static void main(String[] args) throws InterruptedException {
        Runnable bump = () -> {
            int seen = hits;
            hits = seen + 1;
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
