import java.util.concurrent.LinkedBlockingQueue;

/** A thread blocks in an (uninstrumented) LinkedBlockingQueue.take that nobody feeds. */
public class QueueTake {
    static final LinkedBlockingQueue<String> QUEUE = new LinkedBlockingQueue<>();

    public static void main(String[] args) throws Exception {
        Thread taker = new Thread(() -> {
            try {
                System.out.println("took " + QUEUE.take());
            } catch (InterruptedException e) {
                System.out.println("interrupted");
            }
        }, "taker");
        taker.start();
        taker.join();
    }
}
