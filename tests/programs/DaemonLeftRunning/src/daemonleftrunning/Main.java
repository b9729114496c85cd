package daemonleftrunning;

/**
 * Hostile but correct: main starts two daemon threads that never end (one counts forever, one
 * waits forever on a monitor nobody notifies) and then returns. A JVM ends when its last
 * non-daemon thread ends, so the program ends with status 0; rankcheck must end each execution
 * when main does, not wait for the daemons, and must not call them deadlocked or livelocked.
 */
public class Main {
    static final Object never = new Object();
    static long ticks;

    public static void main(String[] args) {
        Thread counter = new Thread(() -> {
            while (true) {
                ticks++;
            }
        }, "daemon-counter");
        Thread sleeper = new Thread(() -> {
            synchronized (never) {
                while (true) {
                    try {
                        never.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "daemon-waiter");
        counter.setDaemon(true);
        sleeper.setDaemon(true);
        counter.start();
        sleeper.start();
        System.out.println("main done; daemons left running");
    }
}
