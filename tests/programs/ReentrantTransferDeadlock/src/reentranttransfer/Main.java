package reentranttransfer;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

public class Main {
    static class Account {
        final ReentrantLock lock = new ReentrantLock();
        long balance;

        Account(long balance) {
            this.balance = balance;
        }
    }

    static void transfer(Account from, Account to, long amount) {
        from.lock.lock();
        try {
            to.lock.lock();
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

    public static void main(String[] args) throws InterruptedException {
        Account savings = new Account(100);
        Account checking = new Account(50);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> transfer(savings, checking, 30));
        pool.submit(() -> transfer(checking, savings, 10));
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        System.out.println("savings " + savings.balance + ", checking " + checking.balance);
    }
}
