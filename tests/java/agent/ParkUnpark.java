import java.util.concurrent.locks.LockSupport;

/** A worker parks until main sets a flag and unparks it; an early unpark leaves a permit. */
public class ParkUnpark {
    static volatile boolean ready;

    public static void main(String[] args) throws Exception {
        Thread worker = new Thread(() -> {
            int parks = 0;
            while (!ready) {
                LockSupport.park();
                parks++;
            }
            System.out.println("worker saw ready");
        });
        worker.start();
        ready = true;
        LockSupport.unpark(worker);
        worker.join();
        // A permit given before park makes the next park return at once.
        LockSupport.unpark(Thread.currentThread());
        LockSupport.park();
        System.out.println("permit used");
        // A timed park nobody unparks returns (virtual time).
        LockSupport.parkNanos(1_000_000L);
        System.out.println("timed park returned");
    }
}
