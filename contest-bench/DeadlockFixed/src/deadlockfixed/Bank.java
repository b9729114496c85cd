package deadlockfixed;

/**
 * Moves money between accounts, holding both accounts' locks. The fix: the locks are always
 * taken in the order of the account numbers, so no two transfers wait for each other in a cycle.
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
        Account first = from.number() < to.number() ? from : to;
        Account second = first == from ? to : from;
        synchronized (first) {
            synchronized (second) {
                if (from.balance() < amount) {
                    return false;
                }
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
