package deadlock;

/**
 * Moves money between accounts, holding both accounts' locks. The bug: the locks are taken in
 * the order of the call (source, then destination), so two opposite transfers take them in
 * opposite orders and can deadlock.
 */
final class Bank {
    private final Account[] accounts;

    Bank(int count, int opening) {
        accounts = new Account[count];
        for (int i = 0; i < count; i++) {
            accounts[i] = new Account(i, opening);
        }
    }

    Account account(int i) {
        return accounts[i];
    }

    boolean transfer(Account from, Account to, int amount) {
        synchronized (from) {
            if (from.balance() < amount) {
                return false;
            }
            synchronized (to) {
                from.add(-amount);
                to.add(amount);
                return true;
            }
        }
    }

    int total() {
        int sum = 0;
        for (Account a : accounts) {
            synchronized (a) {
                sum += a.balance();
            }
        }
        return sum;
    }
}
