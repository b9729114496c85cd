package spinplainflagyield;

/**
 * An unnamed worker polls a plain field, yielding on every iteration, until main sets it. The
 * flag is not volatile; the yield call in the loop keeps the JIT from hoisting the read.
 */
public class Main {
    static class Flag {
        boolean up;
    }

    static final Flag FLAG = new Flag();

    public static void main(String[] args) throws InterruptedException {
        Thread poller = new Thread(() -> {
            long polls = 0;
            while (!FLAG.up) {
                polls++;
                Thread.yield();
            }
            System.out.println(Thread.currentThread().getName() + " saw the flag"
                    + (polls > 0 ? " after polling" : " at once"));
        });
        poller.start();
        synchronized (FLAG) {
            FLAG.up = true;
        }
        poller.join();
        System.out.println("done");
    }
}
