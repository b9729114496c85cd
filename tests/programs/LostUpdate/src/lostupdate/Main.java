package lostupdate;

/**
 * Two adders each add 1 to a shared total with an unsynchronized read-modify-write; main checks
 * that the total is 2.
 *
 * <p>A failing interleaving exists: {@code total++} is a read then a write. Adder 1 reads 0 and
 * is preempted before its write; adder 2 reads 0, writes 1 and ends; adder 1 writes 1. One
 * increment is lost. That takes one preemption, at an access to {@code total}, between two
 * threads: (c, v, t) = (1, 1, 2).
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

    static void addOne() {
        total++;
    }
}
