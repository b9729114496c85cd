package paperfig8;

/**
 * Figure 8 of the RankChecker paper: threads 1 and 2 each do a++, thread 3 asserts a != 2.
 *
 * <p>Fails when both increments complete before thread 3 reads a: no preemption, only an order
 * of all three threads (1 and 2 before 3): (c, v, t) = (0, 0, 3).
 *
 * <p>Written for rankcheck from the figure's description; a and b are static fields.
 */
public class Main {
    static int a;

    static void thread1() {
        a++;
    }

    static void thread2() {
        a++;
    }

    static void thread3() {
        if (a == 2) { // ASSERT(a != 2)
            throw new AssertionError("both increments happened before thread 3 looked");
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread thread1 = begin("thread-1", Main::thread1);
        Thread thread2 = begin("thread-2", Main::thread2);
        Thread thread3 = begin("thread-3", Main::thread3);
        openGateAndJoin(thread1, thread2, thread3);
        System.out.println("no failure in this interleaving");
    }

    // Every worker waits here until main has started them all, so the figure's threads begin
    // together as in the paper's model: no preemption is spent on thread creation, and main's
    // order relative to the workers does not matter.
    private static final Object gate = new Object();
    private static boolean open;

    private static Thread begin(String name, Runnable body) {
        Thread t = new Thread(() -> {
            synchronized (gate) {
                while (!open) {
                    try {
                        gate.wait();
                    } catch (InterruptedException e) {
                        throw new AssertionError("nobody interrupts in this program", e);
                    }
                }
            }
            body.run();
        }, name);
        t.start();
        return t;
    }

    private static void openGateAndJoin(Thread... workers) throws InterruptedException {
        synchronized (gate) {
            open = true;
            gate.notifyAll();
        }
        for (Thread w : workers) {
            w.join();
        }
    }
}
