package paperfig10;

/**
 * Figure 10 of the RankChecker paper: thread 1 reads a twice and b twice; thread 2 does a++,
 * thread 3 does b++. Fails if both a and b changed between thread 1's paired reads.
 *
 * <p>Thread 1 must be preempted between its reads of a (thread 2 runs) and again between its reads
 * of b (thread 3 runs), and thread 3 must not run before thread 1's first read of b: two
 * preemptions at two variables, three threads: (c, v, t) = (2, 2, 3).
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
        int t4 = b;
        if (!(t1 == t2 || t3 == t4)) { // ASSERT(t1 == t2 or t3 == t4)
            throw new AssertionError("both a and b changed under thread 1's reads");
        }
    }

    static void thread2() {
        a++;
    }

    static void thread3() {
        b++;
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
