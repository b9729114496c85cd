package jobs;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workers drain a shared queue of jobs. Each asks whether the queue is empty and then takes a
 * job, in two calls: when one job is left, both workers can see it, one takes it, and the other
 * takes null.
 */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            queue.add(done::incrementAndGet);
        }
        Runnable worker = () -> {
            while (!queue.isEmpty()) {
                queue.poll().run();
            }
        };
        Thread a = new Thread(worker);
        Thread b = new Thread(worker);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("jobs done: " + done.get());
    }
}
