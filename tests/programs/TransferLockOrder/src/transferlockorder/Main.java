package transferlockorder;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantLock;

/** Transfers between accounts, each guarded by its own lock. */
public class Main {
    static final class Account {
        final String name;
        final ReentrantLock lock = new ReentrantLock();
        int balance;

        Account(String name, int balance) {
            this.name = name;
            this.balance = balance;
        }
    }

    static void transfer(Account from, Account to, int amount) {
        ReentrantLock first = from.lock, second = to.lock;
        first.lock();
        try {
            second.lock();
            try {
                from.balance -= amount;
                to.balance += amount;
            } finally {
                second.unlock();
            }
        } finally {
            first.unlock();
        }
    }

    public static void main(String[] args) throws Exception {
        Account alice = new Account("alice", 100);
        Account bob = new Account("bob", 100);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<?> rent = pool.submit(() -> transfer(alice, bob, 30));
        Future<?> refund = pool.submit(() -> transfer(bob, alice, 10));
        rent.get();
        refund.get();
        pool.shutdown();
        System.out.println("alice " + alice.balance + ", bob " + bob.balance);
    }
}
