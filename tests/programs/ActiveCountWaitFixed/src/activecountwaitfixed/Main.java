package activecountwaitfixed;

public class Main {
    static long total = 0;

    static synchronized void addShare(long share) {
        total += share;
    }

    public static void main(String[] args) {
        long[] shares = {40, 2};
        for (long share : shares) {
            new Thread(() -> addShare(share)).start();
        }
        // Wait until only main is left.
        while (Thread.activeCount() > 1) {
            Thread.yield();
        }
        System.out.println("total = " + total);
        if (total != 42) {
            throw new IllegalStateException("a share was lost: total = " + total);
        }
    }
}
