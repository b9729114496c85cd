package deadlock;

/** Makes a series of transfers from one account to another. */
final class Clerk extends Thread {
    private final Bank bank;
    private final int from;
    private final int to;
    private final int transfers;

    Clerk(int id, Bank bank, int from, int to, int transfers) {
        super("clerk-" + id);
        this.bank = bank;
        this.from = from;
        this.to = to;
        this.transfers = transfers;
    }

    @Override
    public void run() {
        for (int i = 0; i < transfers; i++) {
            bank.transfer(bank.account(from), bank.account(to), 1 + i % 7);
        }
    }
}
