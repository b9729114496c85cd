package piper;

/** A booking clerk taking requests from the pipe and booking them on the flight. */
final class Clerk extends Thread {
    private final Pipe pipe;
    private final Flight flight;
    private final int requests;

    Clerk(int id, Pipe pipe, Flight flight, int requests) {
        super("clerk-" + id);
        this.pipe = pipe;
        this.flight = flight;
        this.requests = requests;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < requests; i++) {
                flight.book(pipe.take());
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
    }
}
