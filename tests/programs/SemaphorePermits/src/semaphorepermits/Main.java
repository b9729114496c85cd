package semaphorepermits;

import java.util.ArrayDeque;
import java.util.concurrent.Semaphore;

/**
 * A pool of 2 connections is guarded by a Semaphore that was created with 3 permits. Three
 * workers each acquire a permit, borrow a connection, use it, give it back and release.
 *
 * <p>A failing interleaving exists: worker 1 borrows a connection and is preempted before giving
 * it back (at the pool's monitor); worker 2 does the same; worker 3 gets the third permit and
 * finds the pool empty. Two workers must each be switched away from while holding a connection,
 * both at the pool, and the three workers' order matters: (c, v, t) = (2, 1, 3). No schedule with
 * fewer preemptions fails: a worker holds a connection only between borrow and giveBack, and
 * nothing blocks there.
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
    static final Semaphore permits = new Semaphore(CONNECTIONS + 1); // BUG: one permit too many

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
