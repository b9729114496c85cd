package lockcheckoutsidefixed;

import java.util.concurrent.locks.ReentrantLock;

/**
 * LockCheckOutside with the check moved inside the lock: exactly one buyer books the one seat.
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
            lock.lock();
            try {
                if (booked >= seats) {
                    return false;
                }
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
        if (office.booked() != 1) {
            throw new AssertionError(office.booked() + " bookings for 1 seat");
        }
        System.out.println("booked " + office.booked());
    }
}
