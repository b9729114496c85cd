package timedwaitnoloop;

/**
 * Main reads a message that an unnamed writer thread delivers under a lock with notifyAll.
 * The buggy reader waits once, with a timeout, and then uses whatever is there: if the wait
 * times out (or wakes spuriously) before the writer ran, the message is still null. Its failure
 * message says how long it waited, from System.currentTimeMillis(). No preemption: main blocks in
 * the wait and its time-out comes before the writer runs: (c, v, t) = (0, 0, 2). The time-out
 * fires while the writer could still run, so rankcheck finds it with --timeouts any (or
 * --spurious), not with the default, where a timeout fires only when nothing else can run.
 */
public class Main {
    static final Object MAILBOX = new Object();
    static String data;

    public static void main(String[] args) throws InterruptedException {
        Thread writer = new Thread(() -> {
            synchronized (MAILBOX) {
                data = "hello";
                MAILBOX.notifyAll();
            }
        });
        writer.start();
        String got;
        long start = System.currentTimeMillis();
        synchronized (MAILBOX) {
            if (data == null) { // BUG: one timed wait, no loop
                MAILBOX.wait(1000);
            }
            got = data;
        }
        if (got == null) {
            throw new IllegalStateException("no message after waiting "
                    + (System.currentTimeMillis() - start) + " ms since " + start);
        }
        writer.join();
        System.out.println("got " + got);
    }
}
