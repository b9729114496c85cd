package paperfig2;

/**
 * Figure 2 of the RankChecker paper: thread 1 reads a twice and asserts both reads agree,
 * thread 2 does a++.
 *
 * <p>Fails when thread 1 is preempted between its reads and thread 2 runs its increment: one
 * preemption at a: (c, v, t) = (1, 1, 2).
 *
 * <p>Written for rankcheck from the figure's description; a and b are static fields.
 */
public class Main {
    static int a;

    static void thread1() {
        int t1 = a;
        int t2 = a;
        if (t1 != t2) { // ASSERT(t1 == t2)
            throw new AssertionError("a changed between two reads: " + t1 + " then " + t2);
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
