package groupbooking;

/**
 * One flight's free seats. A single seat is booked under the flight's lock, check and take
 * together. A group booking checks that there is room for the whole group without the lock and
 * takes the seats under it afterwards, so seats booked by others in between are not seen.
 */
final class Flight {
    private final String name;
    private final int capacity;
    private int free;

    Flight(String name, int capacity) {
        this.name = name;
        this.capacity = capacity;
        this.free = capacity;
    }

    String name() {
        return name;
    }

    int capacity() {
        return capacity;
    }

    synchronized boolean bookOne() {
        if (free < 1) {
            return false;
        }
        free = free - 1;
        return true;
    }

    /** The bug: the room check is not in the same critical section as the booking. */
    boolean bookGroup(int size) {
        if (free < size) {
            return false;
        }
        synchronized (this) {
            free = free - size;
        }
        return true;
    }

    synchronized int free() {
        return free;
    }
}
