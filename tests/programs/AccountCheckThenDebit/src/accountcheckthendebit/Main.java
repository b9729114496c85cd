package accountcheckthendebit;

/**
 * Two tellers withdraw from one account whose methods are all synchronized: {@code withdraw}
 * asks {@code balance()}, then calls {@code debit}. Each call holds the account's lock; the
 * check and the act together do not, so both tellers can pass the check and overdraw it.
 */
public class Main {
    static class Account {
        private int balance;

        Account(int balance) {
            this.balance = balance;
        }

        synchronized int balance() {
            return balance;
        }

        synchronized void debit(int amount) {
            balance -= amount;
        }

        boolean withdraw(int amount) {
            if (balance() >= amount) {
                debit(amount);
                return true;
            }
            return false;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Account account = new Account(100);
        Thread first = new Thread(() -> account.withdraw(80));
        Thread second = new Thread(() -> account.withdraw(70));
        first.start();
        second.start();
        first.join();
        second.join();
        System.out.println("balance " + account.balance());
        if (account.balance() < 0) {
            throw new IllegalStateException("overdrawn: balance " + account.balance());
        }
    }
}
