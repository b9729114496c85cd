package politelivelockfixed;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Two unnamed threads each enter a critical section once, announcing themselves with their own
 * wantIn flag. A thread that sees the other's flag up backs off politely with Thread.yield()
 * and retries. In the buggy variant both keep their own flag up while they wait, so once both
 * flags are up neither ever enters: both threads stay runnable, yielding, forever (a
 * livelock). The fixed variant adds Peterson's turn variable.
 */
public class Main {
    static final AtomicBoolean[] wantIn = {new AtomicBoolean(), new AtomicBoolean()};
    static volatile int turn;
    static volatile int entered;

    static void enterOnce(int me) {
        int other = 1 - me;
        wantIn[me].set(true);
        turn = other;
        while (wantIn[other].get() && turn == other) {
            Thread.yield(); // back off and retry
        }
        entered++; // critical section
        wantIn[me].set(false);
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(() -> enterOnce(0));
        Thread b = new Thread(() -> enterOnce(1));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(a.getName() + " and " + b.getName() + " entered " + entered + " times");
    }
}
