package piper;

import java.util.ArrayList;
import java.util.List;

/** The flight's passenger list; booking holds the flight's lock. */
final class Flight {
    private final List<String> passengers = new ArrayList<>();

    synchronized void book(String passenger) {
        if (passengers.contains(passenger)) {
            throw new AssertionError("Piper: BUG " + passenger + " booked twice");
        }
        passengers.add(passenger);
    }

    synchronized int booked() {
        return passengers.size();
    }
}
