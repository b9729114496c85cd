import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A correct program through the java.util.concurrent constructs tests/programs does not cover
 * on their own: CompletableFuture on the common pool, a cached pool, a read-write lock, a
 * cyclic barrier, a semaphore, a blocking queue with a timed poll. Every interleaving ends
 * with "ok 21 1 7"; under rankcheck it must never be reported (no watchdog, no deadlock).
 */
public class JucTour {
    static int counter;

    public static void main(String[] args) throws Exception {
        CompletableFuture<Integer> f =
                CompletableFuture.supplyAsync(() -> 20).thenApplyAsync(x -> x + 1);
        ExecutorService cached = Executors.newCachedThreadPool();
        ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
        Future<?> writer = cached.submit(() -> {
            rw.writeLock().lock();
            try {
                counter++;
            } finally {
                rw.writeLock().unlock();
            }
        });
        rw.readLock().lock();
        try {
            if (counter < 0) throw new AssertionError("negative");
        } finally {
            rw.readLock().unlock();
        }
        CyclicBarrier barrier = new CyclicBarrier(2);
        Future<?> party = cached.submit(() -> {
            try {
                barrier.await();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        barrier.await();
        writer.get();
        party.get();
        Semaphore done = new Semaphore(0);
        BlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
        cached.execute(() -> {
            queue.add(7);
            done.release();
        });
        done.acquire();
        Integer seven = null;
        while (seven == null) seven = queue.poll(1, TimeUnit.SECONDS);
        int value = f.get();
        if (value != 21 || counter != 1 || seven != 7) {
            throw new AssertionError(value + " " + counter + " " + seven);
        }
        cached.shutdown();
        System.out.println("ok " + value + " " + counter + " " + seven);
    }
}
