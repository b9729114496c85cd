package groupbookingfixed;

/**
 * One flight's free seats. Single seats and group bookings are both checked and taken under the
 * flight's lock, in one step.
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

    /** The fix: the room check and the booking are one critical section. */
    synchronized boolean bookGroup(int size) {
        if (free < size) {
            return false;
        }
        free = free - size;
        return true;
    }

    synchronized int free() {
        return free;
    }
}
