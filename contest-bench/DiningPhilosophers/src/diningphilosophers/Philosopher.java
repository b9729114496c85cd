package diningphilosophers;

/**
 * Thinks and eats a few times; eating needs the fork on the left and the fork on the right. The
 * bug: every philosopher picks up the left fork first, so if all of them hold their left fork at
 * once, each waits for a right fork that its neighbour holds.
 */
final class Philosopher extends Thread {
    private final Fork left;
    private final Fork right;
    private final int meals;
    private int eaten;

    Philosopher(int seat, Fork left, Fork right, int meals) {
        super("philosopher-" + seat);
        this.left = left;
        this.right = right;
        this.meals = meals;
    }

    @Override
    public void run() {
        for (int i = 0; i < meals; i++) {
            synchronized (left) {
                left.use();
                synchronized (right) {
                    right.use();
                    eaten++;
                }
            }
        }
    }

    int eaten() {
        return eaten;
    }
}
