package bank;

/** A bank account; deposit is a read-modify-write, depositLocked holds the account's lock. */
public class Account {
    private long balance;

    public void deposit(long amount) {
        balance = balance + amount;
    }

    public synchronized void depositLocked(long amount) {
        balance = balance + amount;
    }

    public synchronized long balance() {
        return balance;
    }
}
