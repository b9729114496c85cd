package diningphilosophersfixed;

/**
 * Thinks and eats a few times; eating needs the fork on the left and the fork on the right. The
 * fix: every philosopher picks up the lower-numbered of its two forks first, so the forks are
 * locked in one global order and no cycle of waiting philosophers can form.
 */
final class Philosopher extends Thread {
    private final Fork first;
    private final Fork second;
    private final int meals;
    private int eaten;

    Philosopher(int seat, Fork left, Fork right, int meals) {
        super("philosopher-" + seat);
        this.first = left.number() < right.number() ? left : right;
        this.second = first == left ? right : left;
        this.meals = meals;
    }

    @Override
    public void run() {
        for (int i = 0; i < meals; i++) {
            synchronized (first) {
                first.use();
                synchronized (second) {
                    second.use();
                    eaten++;
                }
            }
        }
    }

    int eaten() {
        return eaten;
    }
}
