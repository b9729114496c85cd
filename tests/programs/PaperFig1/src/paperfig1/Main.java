package paperfig1;

/**
 * Figure 1 of the RankChecker paper (Bindal, Bansal, Lal): thread 1 asserts a == 0, thread 2
 * does a++.
 *
 * <p>The assertion fails when thread 2 runs before thread 1, which needs no preemption, only the
 * order of the two threads (the priority order that ranks thread 2 first): (c, v, t) = (0, 0, 2).
 *
 * <p>Written for rankcheck from the figure's description; a and b are static fields.
 */
public class Main {
    static int a;

    static void thread1() {
        if (a != 0) { // ASSERT(a == 0)
            throw new AssertionError("a = " + a + ": thread 2 ran first");
        }
    }

    static void thread2() {
        a++;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread thread1 = begin("thread-1", Main::thread1);
        Thread thread2 = begin("thread-2", Main::thread2);
        openGateAndJoin(thread1, thread2);
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
