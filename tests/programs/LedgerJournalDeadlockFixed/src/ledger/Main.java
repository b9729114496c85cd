package ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/** Postings and an audit over a ledger (a monitor) and its journal (a lock). */
public class Main {
    static final List<Integer> ledger = new ArrayList<>();
    static final ReentrantLock journalLock = new ReentrantLock();
    static final List<String> journal = new ArrayList<>();

    static void post(int amount) {
        synchronized (ledger) {
            ledger.add(amount);
            journalLock.lock();
            try {
                journal.add("posted " + amount);
            } finally {
                journalLock.unlock();
            }
        }
    }

    static void audit() {
        // The ledger first, as post does.
        synchronized (ledger) {
            journalLock.lock();
            try {
                journal.add("audit started");
                int sum = 0;
                for (int amount : ledger) {
                    sum += amount;
                }
                journal.add("audited " + sum);
            } finally {
                journalLock.unlock();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread monitor = new Thread(() -> {
            while (true) {
                System.out.println("threads: " + Thread.getAllStackTraces().size());
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        monitor.setDaemon(true);
        monitor.start();

        Thread poster = new Thread(() -> post(120));
        Thread auditor = new Thread(Main::audit);
        poster.start();
        auditor.start();
        poster.join();
        auditor.join();
        System.out.println(journal);
    }
}
