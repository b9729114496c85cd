package account;

import java.util.Random;

/**
 * A bank clerk serving a queue of customers at one account: deposits and withdrawals drawn from
 * a seeded generator, so every run makes the same requests. It books what it actually moved so
 * that the bank can check the account afterwards.
 */
final class Teller extends Thread {
    private final Account account;
    private final int customers;
    private final long seed;
    private int deposited;
    private int withdrawn;

    Teller(String name, Account account, int customers, long seed) {
        super(name);
        this.account = account;
        this.customers = customers;
        this.seed = seed;
    }

    @Override
    public void run() {
        Random requests = new Random(seed);
        for (int i = 0; i < customers; i++) {
            int amount = 10 * (1 + requests.nextInt(5));
            if (i % 2 == 0) {
                account.deposit(amount);
                deposited += amount;
            } else if (account.withdraw(amount)) {
                withdrawn += amount;
            }
        }
    }

    /** Net money this teller moved into the account (read after join). */
    int net() {
        return deposited - withdrawn;
    }
}
