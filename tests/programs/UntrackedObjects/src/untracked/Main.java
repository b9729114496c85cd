package untracked;

/**
 * Main makes two counters at two allocation sites and starts a worker; both threads bump both
 * counters through the same method {@link #add}, the first counter under its monitor, the second
 * without synchronization; main checks that the second counter was bumped twice.
 *
 * <p>A failing interleaving exists: one thread reads the second counter in {@code add} and is
 * preempted before its write; the other bumps it; the first writes the stale value plus one. One
 * preemption at an access to the second counter, two threads: (c, v, t) = (1, 1, 2).
 *
 * <p>The points-to analysis cannot tell the two counters apart in {@code add} (it is
 * context-insensitive), so instrumenting for the first counter's variable alone also
 * instruments {@code add}'s accesses to the second; at run time those are not scheduling points,
 * and the bug is out of reach there. Instrumenting for the second counter's variable finds it.
 */
public class Main {
    static final class Counter {
        int count;
    }

    public static void main(String[] args) throws InterruptedException {
        Counter guarded = new Counter();
        Counter racy = new Counter();
        Thread worker = new Thread(() -> bumpBoth(guarded, racy), "worker");
        worker.start();
        bumpBoth(guarded, racy);
        worker.join();
        if (racy.count != 2) {
            throw new AssertionError("lost update on the second counter: count = " + racy.count + ", expected 2");
        }
        System.out.println("counts = " + guarded.count + " " + racy.count);
    }

    static void bumpBoth(Counter guarded, Counter racy) {
        synchronized (guarded) {
            add(guarded);
        }
        add(racy);
    }

    static void add(Counter counter) {
        counter.count = counter.count + 1;
    }
}
