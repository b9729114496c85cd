package lockorderdeadlockfixed;

/**
 * LockOrderDeadlock with one global lock order: a transfer locks the account with the smaller id
 * first, whatever the direction, so no cycle of waiting clerks can form.
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
        Account first = from.id.compareTo(to.id) < 0 ? from : to;
        Account second = first == from ? to : from;
        synchronized (first) {
            synchronized (second) {
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
        if (a.balance != 90 || b.balance != 110) {
            throw new AssertionError("balances " + a.balance + " and " + b.balance);
        }
        System.out.println(a.id + "=" + a.balance + " " + b.id + "=" + b.balance);
    }
}
