package rw;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/** Monitors, wait/notify and thread operations; output does not depend on the interleaving. */
public class Threads {
    private static int shared;
    private static long sharedLong;
    private int instanceCount;
    private final ArrayDeque<Integer> queue = new ArrayDeque<>();

    static synchronized void incStatic() {
        shared++;
        sharedLong += 3;
    }

    synchronized void incInstance() {
        instanceCount++;
    }

    synchronized int getCount() {
        return instanceCount;
    }

    synchronized long longResult(long x) {
        return x * 2;
    }

    synchronized double doubleResult(double x) {
        return x / 2;
    }

    /** Synchronized and recursive (reentrant), with an early return in a loop. */
    synchronized int recurse(int n) {
        while (true) {
            if (n <= 0) return 0;
            return n + recurse(n - 1);
        }
    }

    /** A synchronized method that throws: the lock must still be released. */
    synchronized void fail(boolean really) {
        if (really) throw new IllegalArgumentException("failed inside synchronized");
        instanceCount += 0;
    }

    static synchronized void emptyStatic() {}

    void put(int v) {
        synchronized (queue) {
            queue.addLast(v);
            queue.notifyAll();
        }
    }

    int take() throws InterruptedException {
        synchronized (queue) {
            while (queue.isEmpty()) queue.wait();
            return queue.removeFirst();
        }
    }

    static class Worker extends Thread {
        int done;

        @Override
        public void run() {
            for (int i = 0; i < 1000; i++) incStatic();
            done = 1;
        }
    }

    public static void main(String[] args) throws Exception {
        Threads t = new Threads();
        Worker[] ws = new Worker[4];
        for (int i = 0; i < ws.length; i++) {
            ws[i] = new Worker();
            ws[i].start();
        }
        Thread[] ts = new Thread[3];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 500; k++) t.incInstance();
            });
            ts[i].start();
        }
        for (Worker w : ws) w.join();
        for (Thread x : ts) x.join(10_000);
        System.out.println("shared " + shared + " " + sharedLong + " count " + t.getCount());
        System.out.println("results " + t.longResult(21) + " " + t.doubleResult(3) + " " + t.recurse(10));
        try {
            t.fail(true);
        } catch (IllegalArgumentException e) {
            System.out.println("caught " + e.getMessage());
        }
        System.out.println("lock free " + !Thread.holdsLock(t));
        emptyStatic();

        Thread producer = new Thread(() -> {
            for (int i = 1; i <= 50; i++) t.put(i);
            t.put(-1);
        });
        int[] sum = new int[1];
        Thread consumer = new Thread(() -> {
            try {
                int v;
                while ((v = t.take()) != -1) sum[0] += v;
            } catch (InterruptedException e) {
                sum[0] = -1;
            }
        });
        consumer.start();
        producer.start();
        producer.join();
        consumer.join();
        System.out.println("queue sum " + sum[0]);

        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(60_000);
                System.out.println("not interrupted");
            } catch (InterruptedException e) {
                System.out.println("interrupted " + Thread.currentThread().isInterrupted());
            }
        });
        sleeper.start();
        sleeper.interrupt();
        sleeper.join();
        Thread.currentThread().interrupt();
        System.out.println("flag " + Thread.interrupted() + " " + Thread.interrupted());

        Object lock = new Object();
        synchronized (lock) {
            lock.wait(1);
            lock.notify();
        }
        Thread parker = new Thread(() -> LockSupport.park());
        parker.start();
        LockSupport.unpark(parker);
        parker.join();
        Thread.yield();
        System.out.println("done " + ws[0].done);
    }
}
