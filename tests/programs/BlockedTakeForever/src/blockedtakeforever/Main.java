package blockedtakeforever;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * Hostile: a worker takes from a LinkedBlockingQueue that nobody ever puts into; main joins it.
 * The worker blocks forever inside the JDK (parked in the queue's Condition), so every execution
 * hangs: rankcheck must end it, by its watchdog, or as a deadlock if it models the queue's lock and
 * condition.
 */
public class Main {
    static final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();

    public static void main(String[] args) throws InterruptedException {
        Thread taker = new Thread(() -> {
            try {
                System.out.println("took " + queue.take());
            } catch (InterruptedException e) {
                throw new AssertionError("nobody interrupts in this program", e);
            }
        }, "taker");
        taker.start();
        taker.join();
    }
}
