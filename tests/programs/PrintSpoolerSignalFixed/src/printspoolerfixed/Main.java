package printspoolerfixed;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Clerks hand print jobs to printers through a spooler with room for one job. */
public class Main {
    static class Spooler {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private String job;

        void submit(String j) throws InterruptedException {
            lock.lock();
            try {
                while (job != null) changed.await();
                job = j;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        String next() throws InterruptedException {
            lock.lock();
            try {
                while (job == null) changed.await();
                String j = job;
                job = null;
                changed.signalAll();
                return j;
            } finally {
                lock.unlock();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Spooler spooler = new Spooler();
        List<String> printed = new ArrayList<>();
        List<Thread> staff = new ArrayList<>();
        for (String clerk : new String[] {"anna", "ben"}) {
            staff.add(new Thread(() -> {
                try {
                    for (int i = 1; i <= 2; i++) spooler.submit(clerk + "-invoice-" + i);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (int p = 0; p < 2; p++) {
            staff.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 2; i++) {
                        String j = spooler.next();
                        synchronized (printed) {
                            printed.add(j);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (Thread t : staff) t.start();
        for (Thread t : staff) t.join();
        System.out.println("printed " + printed.size() + " jobs");
    }
}
