package lockcheckoutside;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A box office with one seat left; two buyers call {@code tryBook}. The booking itself is guarded
 * by a ReentrantLock, but the "is a seat left?" check reads {@code booked} before taking the lock.
 *
 * <p>A failing interleaving exists: buyer 1 reads booked = 0 outside the lock and is preempted;
 * buyer 2 reads 0, locks, books (booked = 1), unlocks and ends; buyer 1 locks and books again.
 * Main finds 2 bookings for 1 seat. One preemption, at an access to {@code booked}, two threads:
 * (c, v, t) = (1, 1, 2).
 */
public class Main {
    static final class BoxOffice {
        private final ReentrantLock lock = new ReentrantLock();
        private final int seats;
        private int booked;

        BoxOffice(int seats) {
            this.seats = seats;
        }

        boolean tryBook() {
            if (booked >= seats) { // BUG: the check reads booked without holding the lock
                return false;
            }
            lock.lock();
            try {
                booked++;
                return true;
            } finally {
                lock.unlock();
            }
        }

        int booked() {
            lock.lock();
            try {
                return booked;
            } finally {
                lock.unlock();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        BoxOffice office = new BoxOffice(1);
        Thread[] buyers = new Thread[2];
        for (int i = 0; i < buyers.length; i++) {
            buyers[i] = new Thread(office::tryBook, "buyer-" + i);
            buyers[i].start();
        }
        for (Thread b : buyers) {
            b.join();
        }
        if (office.booked() > 1) {
            throw new AssertionError(office.booked() + " bookings for 1 seat");
        }
        System.out.println("booked " + office.booked());
    }
}
