import java.nio.ByteBuffer;

/**
 * Checks that at most one application thread runs application code at any instant. Every
 * thread calls {@link #run(int)} between two scheduling points: it marks itself inside a counter
 * that nothing instruments (an int in a direct byte buffer, held in a local: no field or array
 * instruction, no VarHandle, Unsafe or java.util.concurrent call, so no scheduling point lies
 * between the marks), spins on locals for a while, and leaves. Two threads inside at once is an
 * AssertionError.
 */
public final class Exclusive {
    static final ByteBuffer INSIDE = ByteBuffer.allocateDirect(4);

    static long run(int work) {
        ByteBuffer inside = INSIDE;
        int others = inside.getInt(0);
        inside.putInt(0, others + 1);
        long x = work;
        for (int i = 0; i < work * 50; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        int still = inside.getInt(0) - 1;
        inside.putInt(0, still);
        if (others != 0 || still != 0) {
            throw new AssertionError("two application threads ran at once (" + others + ", " + still + ")");
        }
        return x;
    }
}
