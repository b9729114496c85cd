package paperfig4;

/**
 * Figure 4 of the RankChecker paper: thread 1 reads a twice and then b; thread 2 writes a = 1,
 * b = 1, b = 0. The assertion fails if a changed between thread 1's reads and thread 1 saw b == 1.
 *
 * <p>Failing needs thread 2's a = 1 between thread 1's two reads of a (thread 1 preempted, at a)
 * and thread 1's read of b between thread 2's b = 1 and b = 0 (thread 2 preempted, at b), e.g.
 * t1 = a | a = 1; b = 1 | t2 = a; t3 = b. Two preemptions at two distinct variables:
 * (c, v, t) = (2, 2, 2).
 *
 * <p>Written for rankcheck from the figure's description; a and b are static fields.
 */
public class Main {
    static int a;
    static int b;

    static void thread1() {
        int t1 = a;
        int t2 = a;
        int t3 = b;
        if (!(t1 == t2 || t3 != 1)) { // ASSERT(t1 == t2 or t3 != 1)
            throw new AssertionError("a changed (" + t1 + " to " + t2 + ") and b was 1");
        }
    }

    static void thread2() {
        a = 1;
        b = 1;
        b = 0;
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
