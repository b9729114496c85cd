package airlinetickets;

/** A ticket agent selling seats of one flight until it is full. */
final class Seller extends Thread {
    private final Flight flight;
    private int tickets;

    Seller(int id, Flight flight) {
        super("seller-" + id);
        this.flight = flight;
    }

    @Override
    public void run() {
        while (flight.sellTo(getName() + "/" + tickets)) {
            tickets++;
        }
    }

    int tickets() {
        return tickets;
    }
}
