package checkthenact;

/**
 * Two customers each try to withdraw 60 from an account holding 100. {@code withdraw} checks the
 * balance and then debits it, without a lock around the pair.
 *
 * <p>A failing interleaving exists: customer 1 reads 100 in the check and is preempted; customer
 * 2 checks (100 >= 60), debits to 40 and ends; customer 1 debits 40 - 60 = -20. Main sees a
 * negative balance, or a balance that does not match the withdrawals made. One preemption, at an
 * access to {@code balance}, two threads: (c, v, t) = (1, 1, 2).
 */
public class Main {
    static final int OPENING = 100;
    static final int AMOUNT = 60;
    static int balance = OPENING;
    /** Slot i is written only by customer i, so these do not race with each other. */
    static final boolean[] withdrew = new boolean[2];

    public static void main(String[] args) throws InterruptedException {
        Thread[] customers = new Thread[withdrew.length];
        for (int i = 0; i < customers.length; i++) {
            final int me = i;
            customers[i] = new Thread(() -> withdrew[me] = withdraw(AMOUNT), "customer-" + i);
            customers[i].start();
        }
        int paid = 0;
        for (int i = 0; i < customers.length; i++) {
            customers[i].join();
            paid += withdrew[i] ? AMOUNT : 0;
        }
        if (balance < 0 || balance != OPENING - paid) {
            throw new AssertionError("balance " + balance + " after paying out " + paid);
        }
        System.out.println("balance = " + balance);
    }

    static boolean withdraw(int amount) {
        if (balance >= amount) { // check ...
            balance -= amount; // ... then act: the balance may have changed in between
            return true;
        }
        return false;
    }
}
