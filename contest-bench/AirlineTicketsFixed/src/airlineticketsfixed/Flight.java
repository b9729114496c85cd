package airlineticketsfixed;

/**
 * One flight's seats. Booking checks that a seat is left and takes it under the flight's lock,
 * as one atomic step.
 */
final class Flight {
    private final int seats;
    private int sold;
    private final String[] passengers;

    Flight(int seats) {
        this.seats = seats;
        // Room for every seller to oversell once, so the bug shows as a count, not as a crash.
        this.passengers = new String[seats * 4 + 16];
    }

    /** The fix: check and act under one lock. Says whether a ticket was sold. */
    synchronized boolean sellTo(String passenger) {
        if (sold >= seats) {
            return false;
        }
        int seat = sold;
        sold = seat + 1;
        passengers[seat] = passenger;
        return true;
    }

    int seats() {
        return seats;
    }

    synchronized int sold() {
        return sold;
    }
}
