import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks that at most one application thread runs application code at any instant. Every
 * thread calls {@link #run(int)} between two scheduling points: it marks itself inside with an
 * uninstrumented counter held in a local (so no scheduling point lies between the marks), spins
 * on locals for a while, and leaves. Two threads inside at once is an AssertionError.
 */
public final class Exclusive {
    static final AtomicInteger INSIDE = new AtomicInteger();

    static long run(int work) {
        AtomicInteger inside = INSIDE;
        int others = inside.getAndIncrement();
        long x = work;
        for (int i = 0; i < work * 50; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        int still = inside.decrementAndGet();
        if (others != 0 || still != 0) {
            throw new AssertionError("two application threads ran at once (" + others + ", " + still + ")");
        }
        return x;
    }
}
