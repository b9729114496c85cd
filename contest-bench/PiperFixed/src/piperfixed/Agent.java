package piperfixed;

/** A travel agent sending reservation requests into the pipe. */
final class Agent extends Thread {
    private final Pipe pipe;
    private final int requests;

    Agent(int id, Pipe pipe, int requests) {
        super("agent-" + id);
        this.pipe = pipe;
        this.requests = requests;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < requests; i++) {
                pipe.put(getName() + "/passenger-" + i);
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
    }
}
