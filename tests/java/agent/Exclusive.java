import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Checks that at most one application thread runs application code at any instant. Every
 * thread calls {@link #run(int)} between two scheduling points: it marks itself inside a counter
 * that nothing instruments (an int[] element through a VarHandle, both held in locals: no field or
 * array instruction, no java.util.concurrent call, so no scheduling point lies between the
 * marks), spins on locals for a while, and leaves. Two threads inside at once is an
 * AssertionError.
 */
public final class Exclusive {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);
    static final int[] INSIDE = new int[1];

    static long run(int work) {
        VarHandle slot = SLOT;
        int[] inside = INSIDE;
        int others = (int) slot.getAndAdd(inside, 0, 1);
        long x = work;
        for (int i = 0; i < work * 50; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        int still = (int) slot.getAndAdd(inside, 0, -1) - 1;
        if (others != 0 || still != 0) {
            throw new AssertionError("two application threads ran at once (" + others + ", " + still + ")");
        }
        return x;
    }
}
