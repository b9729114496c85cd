package lostupdatefixed;

/**
 * LostUpdate with the increment made atomic: {@code addOne} is synchronized, so the read and the
 * write of one increment can no longer be separated by another thread's increment. The joins
 * order both increments before main's read, so the total is 2 under every interleaving.
 */
public class Main {
    static int total;

    public static void main(String[] args) throws InterruptedException {
        Thread first = new Thread(Main::addOne, "adder-1");
        Thread second = new Thread(Main::addOne, "adder-2");
        first.start();
        second.start();
        first.join();
        second.join();
        if (total != 2) {
            throw new AssertionError("lost update: total = " + total + ", expected 2");
        }
        System.out.println("total = " + total);
    }

    static synchronized void addOne() {
        total++;
    }
}
