package semaphorepermitsfixed;

import java.util.ArrayDeque;
import java.util.concurrent.Semaphore;

/**
 * SemaphorePermits with one permit per connection: at most 2 workers hold a permit, a worker gives
 * its connection back before releasing, so a permit holder always finds a connection.
 */
public class Main {
    static final class Connection {
        final int id;
        int uses;

        Connection(int id) {
            this.id = id;
        }
    }

    static final class Pool {
        private final ArrayDeque<Connection> idle = new ArrayDeque<>();

        Pool(int size) {
            for (int i = 0; i < size; i++) {
                idle.add(new Connection(i));
            }
        }

        synchronized Connection borrow() {
            Connection c = idle.poll();
            if (c == null) {
                throw new AssertionError(Thread.currentThread().getName()
                        + " holds a permit but the pool is empty");
            }
            return c;
        }

        synchronized void giveBack(Connection c) {
            idle.add(c);
        }
    }

    static final int CONNECTIONS = 2;
    static final Pool pool = new Pool(CONNECTIONS);
    static final Semaphore permits = new Semaphore(CONNECTIONS);

    public static void main(String[] args) throws InterruptedException {
        Thread[] workers = new Thread[3];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Thread(Main::work, "worker-" + i);
            workers[i].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        System.out.println("all workers done");
    }

    static void work() {
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            throw new AssertionError("nobody interrupts in this program", e);
        }
        try {
            Connection c = pool.borrow();
            c.uses++;
            pool.giveBack(c);
        } finally {
            permits.release();
        }
    }
}
