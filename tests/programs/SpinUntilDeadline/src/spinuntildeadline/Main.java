package spinuntildeadline;

/**
 * A correct program: main gives an optional warm-up thread at most two seconds, polling its
 * flag and the clock, then goes on cold. Warm-up is off (no argument), so the flag never
 * comes and main leaves when the deadline passes; natively after two seconds.
 */
public class Main {
    static volatile boolean warmed;

    public static void main(String[] args) throws InterruptedException {
        boolean warmUp = args.length > 0;
        Thread warmer = new Thread(() -> {
            if (warmUp) {
                warmed = true;
            }
        });
        warmer.start();
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (!warmed && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        warmer.join();
        System.out.println(warmed ? "warm start" : "cold start");
    }
}
