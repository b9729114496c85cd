package behindexit;

import java.util.concurrent.locks.ReentrantLock;

/** Transfers between two accounts; main checks after a while that they finished. */
public class Main {
    static final class Account {
        final int id;
        long balance;
        final ReentrantLock lock = new ReentrantLock();

        Account(int id, long balance) {
            this.id = id;
            this.balance = balance;
        }
    }

    static void transfer(Account from, Account to, long amount) throws InterruptedException {
        from.lock.lockInterruptibly();
        try {
            to.lock.lockInterruptibly();
            try {
                from.balance -= amount;
                to.balance += amount;
            } finally {
                to.lock.unlock();
            }
        } finally {
            from.lock.unlock();
        }
    }

    static void transferOrGiveUp(Account from, Account to, long amount) {
        try {
            transfer(from, to, amount);
        } catch (InterruptedException e) {
            System.out.println("transfer cancelled");
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Account savings = new Account(1, 500);
        Account checking = new Account(2, 300);
        Thread pay = new Thread(() -> transferOrGiveUp(savings, checking, 100));
        Thread refund = new Thread(() -> transferOrGiveUp(checking, savings, 40));
        pay.start();
        refund.start();
        Thread.sleep(2000);
        if (pay.isAlive() || refund.isAlive()) {
            System.out.println("transfers still running after 2 s");
        } else {
            System.out.println("balances " + savings.balance + " " + checking.balance);
        }
        System.exit(0);
    }
}
