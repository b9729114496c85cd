package accountcheckthendebitfixed;

/**
 * AccountCheckThenDebit fixed: {@code withdraw} is synchronized too, so the check and the act
 * hold the account's lock together.
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

        synchronized boolean withdraw(int amount) {
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
