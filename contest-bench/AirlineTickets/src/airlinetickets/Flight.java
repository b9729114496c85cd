package airlinetickets;

/**
 * One flight's seats. Booking checks that a seat is left and then takes it, as two separate
 * steps with no lock around them.
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

    /** The bug: check-then-act on {@code sold}. Says whether a ticket was sold. */
    boolean sellTo(String passenger) {
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
