package watchdog;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * Two registries copied into each other from two threads (each copy takes a snapshot first), while a health monitor logs the
 * live threads every 100 ms for as long as the JVM runs, the way test harnesses watch for a hang.
 */
public class Main {
    static final class Registry {
        private final List<String> names = new ArrayList<>();

        synchronized void add(String name) {
            names.add(name);
        }

        void copyInto(Registry other) {
            List<String> snapshot;
            synchronized (this) {
                snapshot = new ArrayList<>(names);
            }
            for (String name : snapshot) {
                other.add(name);
            }
        }

        synchronized int size() {
            return names.size();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread monitor = new Thread(() -> {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            while (true) {
                int live = Thread.getAllStackTraces().size();
                long[] stuck = threads.findDeadlockedThreads();
                if (stuck != null) {
                    System.out.println("monitor: " + stuck.length + " threads deadlocked");
                }
                if (live > 100) {
                    System.out.println("monitor: " + live + " threads");
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        monitor.setDaemon(true);
        monitor.start();

        Registry users = new Registry();
        Registry admins = new Registry();
        users.add("ann");
        admins.add("root");
        Thread promote = new Thread(() -> users.copyInto(admins));
        Thread demote = new Thread(() -> admins.copyInto(users));
        promote.start();
        demote.start();
        promote.join();
        demote.join();
        System.out.println(users.size() + " users, " + admins.size() + " admins");
    }
}
