package spinvolatileflag;

/** An unnamed worker spins on a volatile flag, with an empty loop body, until main sets it. */
public class Main {
    static volatile boolean done;
    static int payload;

    public static void main(String[] args) throws InterruptedException {
        Thread waiter = new Thread(() -> {
            while (!done) {
            }
            System.out.println(Thread.currentThread().getName() + " saw payload " + payload);
        });
        waiter.start();
        payload = 42;
        done = true;
        waiter.join();
        System.out.println("done");
    }
}
