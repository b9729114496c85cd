package jobs;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workers drain a shared queue of jobs, taking each with one call that also says when the
 * queue is empty: every job runs once.
 */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            queue.add(done::incrementAndGet);
        }
        Runnable worker = () -> {
            Runnable job;
            while ((job = queue.poll()) != null) {
                job.run();
            }
        };
        Thread a = new Thread(worker);
        Thread b = new Thread(worker);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("jobs done: " + done.get());
        if (done.get() != 3) {
            throw new IllegalStateException(done.get() + " of 3 jobs done");
        }
    }
}
