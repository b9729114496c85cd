package accountfixed;

/**
 * A bank account. Every operation holds the account's lock, so each update of {@code balance}
 * is atomic.
 */
final class Account {
    private final String owner;
    private int balance;

    Account(String owner, int opening) {
        this.owner = owner;
        this.balance = opening;
    }

    String owner() {
        return owner;
    }

    /** The fix: the read-modify-write of the balance holds the lock, like withdraw(). */
    synchronized void deposit(int amount) {
        int before = balance;
        balance = before + amount;
    }

    /** Takes money out if there is enough; says whether it did. */
    synchronized boolean withdraw(int amount) {
        if (balance < amount) {
            return false;
        }
        balance = balance - amount;
        return true;
    }

    synchronized int balance() {
        return balance;
    }
}
