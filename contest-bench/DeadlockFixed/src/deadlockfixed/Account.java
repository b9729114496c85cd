package deadlockfixed;

/** A bank account; its own monitor guards its balance. */
final class Account {
    private final int number;
    private int balance;

    Account(int number, int balance) {
        this.number = number;
        this.balance = balance;
    }

    int number() {
        return number;
    }

    /** Caller holds this account's lock. */
    int balance() {
        return balance;
    }

    /** Caller holds this account's lock. */
    void add(int amount) {
        balance += amount;
    }
}
