package spinnoschedulingpoint;

/**
 * Hostile: a worker loops on local variables only (a 64-bit linear congruential generator that
 * would need about 2^64 steps to reach 0), so it never reaches a scheduling point after its first
 * one; main joins it. Only rankcheck's watchdog can end an execution.
 */
public class Main {
    static long result;

    public static void main(String[] args) throws InterruptedException {
        Thread spinner = new Thread(() -> {
            long x = 1;
            do {
                x = x * 6364136223846793005L + 1442695040888963407L;
            } while (x != 0);
            result = x;
        }, "spinner");
        spinner.start();
        spinner.join();
        System.out.println("unreachable in practice: " + result);
    }
}
