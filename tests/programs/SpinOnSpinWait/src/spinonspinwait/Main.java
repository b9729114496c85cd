package spinonspinwait;

/** An unnamed worker spins with Thread.onSpinWait() on a volatile flag until main sets it. */
public class Main {
    static volatile boolean go;
    static String message;

    public static void main(String[] args) throws InterruptedException {
        Thread waiter = new Thread(() -> {
            while (!go) Thread.onSpinWait();
            System.out.println(Thread.currentThread().getName() + " got " + message);
        });
        waiter.start();
        message = "hello";
        go = true;
        waiter.join();
        System.out.println("done");
    }
}
