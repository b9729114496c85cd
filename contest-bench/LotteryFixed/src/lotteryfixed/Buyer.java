package lotteryfixed;

/** Buys tickets while the lottery is open. */
final class Buyer extends Thread {
    private final Lottery lottery;
    private final int wanted;

    Buyer(int id, Lottery lottery, int wanted) {
        super("buyer-" + id);
        this.lottery = lottery;
        this.wanted = wanted;
    }

    @Override
    public void run() {
        for (int i = 0; i < wanted && lottery.buy(getName() + "#" + i); i++) {
            // one ticket per round
        }
    }
}
