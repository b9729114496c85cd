package groupbookingfixed;

/** A travel agent making one booking: a single seat, or seats for a group. */
final class Agent extends Thread {
    private final Flight flight;
    private final int group;
    private int booked;

    /** {@code group == 1}: a single traveller; otherwise a group booked in one go. */
    Agent(String name, Flight flight, int group) {
        super(name);
        this.flight = flight;
        this.group = group;
    }

    @Override
    public void run() {
        boolean ok = group == 1 ? flight.bookOne() : flight.bookGroup(group);
        booked = ok ? group : 0;
    }

    Flight flight() {
        return flight;
    }

    int booked() {
        return booked;
    }
}
