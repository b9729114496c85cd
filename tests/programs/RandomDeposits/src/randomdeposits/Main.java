package randomdeposits;

import java.util.Random;

/**
 * Two unnamed threads each deposit a random amount (1 to 100, from an unseeded Random) into a
 * shared balance. The buggy deposit reads and writes the balance separately: a preemption in
 * between loses a deposit. (c, v, t) = (1, 1, 2). Main's message prints the amounts.
 */
public class Main {
    static long balance;
    static final int[] amounts = new int[2];

    static void deposit(int amount) {
        long before = balance;
        balance = before + amount;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] ts = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int slot = i;
            ts[i] = new Thread(() -> {
                int amount = 1 + new Random().nextInt(100);
                amounts[slot] = amount;
                deposit(amount);
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (balance != amounts[0] + amounts[1]) {
            throw new IllegalStateException("balance " + balance + " after deposits of "
                    + amounts[0] + " and " + amounts[1]);
        }
        System.out.println("balance " + balance);
    }
}
