package cloned;

/**
 * Main makes a counter, clones it, and starts a worker; both threads bump the copy with an
 * unsynchronized read and write; main checks that the copy was bumped twice.
 *
 * <p>A failing interleaving exists: one thread reads the copy's count and is preempted before
 * its write; the other bumps it; the first writes the stale value plus one. One preemption at an
 * access to the copy, two threads: (c, v, t) = (1, 1, 2).
 *
 * <p>The copy is made by {@code Object.clone}, not by an allocation of the program, so no
 * allocation hook names it; the points-to analysis counts it as the original's variable. A
 * search over that variable must keep the copy's accesses as scheduling points.
 */
public class Main {
    static final class Counter implements Cloneable {
        int count;

        @Override
        public Counter clone() {
            try {
                return (Counter) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Counter original = new Counter();
        Counter copy = original.clone();
        Thread worker = new Thread(() -> add(copy), "worker");
        worker.start();
        add(copy);
        worker.join();
        if (copy.count != 2) {
            throw new AssertionError("lost update on the copy: count = " + copy.count + ", expected 2");
        }
        System.out.println("copy = " + copy.count + ", original = " + original.count);
    }

    static void add(Counter counter) {
        counter.count = counter.count + 1;
    }
}
