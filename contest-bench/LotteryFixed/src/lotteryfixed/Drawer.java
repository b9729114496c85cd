package lotteryfixed;

/** Closes the lottery and draws the winner with a fixed seed. */
final class Drawer extends Thread {
    private final Lottery lottery;
    private final long seed;

    Drawer(Lottery lottery, long seed) {
        super("drawer");
        this.lottery = lottery;
        this.seed = seed;
    }

    @Override
    public void run() {
        lottery.draw(seed);
    }
}
