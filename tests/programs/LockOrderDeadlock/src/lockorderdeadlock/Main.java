package lockorderdeadlock;

/**
 * Two clerks move money between the same two accounts in opposite directions. A transfer locks
 * the source account, then the destination account.
 *
 * <p>A deadlocking interleaving exists: clerk 1 locks account A and is preempted before locking
 * B; clerk 2 locks B and blocks on A; clerk 1 blocks on B. One preemption, at the monitor of one
 * account, two threads: (c, v, t) = (1, 1, 2).
 */
public class Main {
    static final class Account {
        final String id;
        int balance;

        Account(String id, int balance) {
            this.id = id;
            this.balance = balance;
        }
    }

    static void transfer(Account from, Account to, int amount) {
        synchronized (from) {
            synchronized (to) { // BUG: lock order depends on the direction of the transfer
                from.balance -= amount;
                to.balance += amount;
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Account a = new Account("A", 100);
        Account b = new Account("B", 100);
        Thread first = new Thread(() -> transfer(a, b, 30), "clerk-1");
        Thread second = new Thread(() -> transfer(b, a, 20), "clerk-2");
        first.start();
        second.start();
        first.join();
        second.join();
        if (a.balance + b.balance != 200) {
            throw new AssertionError("money was created or lost: " + a.balance + " + " + b.balance);
        }
        System.out.println(a.id + "=" + a.balance + " " + b.id + "=" + b.balance);
    }
}
