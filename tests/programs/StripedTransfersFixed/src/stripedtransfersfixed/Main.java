package stripedtransfersfixed;

import java.util.ArrayList;
import java.util.List;

/**
 * A bank with lock striping: four stripe locks, an account's stripe picked by its hash code.
 * Account does not override hashCode, so stripes follow identity hashes. A transfer locks both
 * accounts' stripes, the lower stripe first (no deadlock between opposite transfers).
 */
public class Main {
    static class Account {
        final String owner;
        long balance;

        Account(String owner, long balance) {
            this.owner = owner;
            this.balance = balance;
        }
    }

    static final Object[] stripes = {new Object(), new Object(), new Object(), new Object()};

    static Object stripeOf(Account a) {
        return stripes[a.hashCode() & 3];
    }

    static void transfer(Account from, Account to, long amount) {
        int a = from.hashCode() & 3;
        int b = to.hashCode() & 3;
        synchronized (stripes[Math.min(a, b)]) {
            synchronized (stripes[Math.max(a, b)]) {
                from.balance -= amount;
                to.balance += amount;
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        List<Account> accounts = new ArrayList<>();
        for (String owner : new String[] {"ann", "bob", "cid", "dee", "eve", "fay"}) {
            accounts.add(new Account(owner, 100));
        }
        Account target = accounts.get(0);
        // Pick two sources on different stripes, as a test of striping would.
        Account first = null;
        Account second = null;
        for (Account a : accounts) {
            if (a == target) {
                continue;
            }
            if (first == null) {
                first = a;
            } else if (stripeOf(a) != stripeOf(first)) {
                second = a;
                break;
            }
        }
        if (second == null) {
            System.out.println("all accounts share a stripe; nothing to test");
            return;
        }
        Account x = first;
        Account y = second;
        Thread t1 = new Thread(() -> transfer(x, target, 10));
        Thread t2 = new Thread(() -> transfer(y, target, 20));
        t1.start();
        t2.start();
        t1.join();
        t2.join();
        long total = 0;
        for (Account a : accounts) {
            total += a.balance;
        }
        if (total != 600) {
            throw new AssertionError("money lost: total " + total + ", " + target.owner + " ("
                    + target + ") holds " + target.balance);
        }
        System.out.println("total " + total);
    }
}
