package spinforever;

/**
 * Hostile: a worker spins on a flag that nobody ever sets, reading a shared field on every
 * iteration; main joins it. The program never ends, natively or under any schedule: every
 * execution must be ended by rankcheck's step bound and reported as a livelock.
 */
public class Main {
    static boolean stop; // never set
    static long spins;

    public static void main(String[] args) throws InterruptedException {
        Thread spinner = new Thread(() -> {
            while (!stop) {
                spins++;
            }
        }, "spinner");
        spinner.start();
        spinner.join();
        System.out.println("unreachable: spun " + spins + " times");
    }
}
