package account;

/**
 * A bank account. Withdrawals and the balance query hold the account's lock; {@link #deposit}
 * does not, so a deposit's read and write of {@code balance} can straddle another update.
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

    /** The bug: an unsynchronized read-modify-write of the balance. */
    void deposit(int amount) {
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
