package checkthenactfixed;

/**
 * CheckThenAct with the check and the debit in one synchronized method: exactly one of the two
 * withdrawals succeeds under every interleaving and the balance ends at 40.
 */
public class Main {
    static final int OPENING = 100;
    static final int AMOUNT = 60;
    static int balance = OPENING;
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
        if (balance < 0 || balance != OPENING - paid || paid != AMOUNT) {
            throw new AssertionError("balance " + balance + " after paying out " + paid);
        }
        System.out.println("balance = " + balance);
    }

    static synchronized boolean withdraw(int amount) {
        if (balance >= amount) {
            balance -= amount;
            return true;
        }
        return false;
    }
}
