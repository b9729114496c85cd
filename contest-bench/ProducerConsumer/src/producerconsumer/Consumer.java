package producerconsumer;

/**
 * Takes items until the channel is closed and empty, adding them up.
 *
 * <p>The bug: "closed or non-empty" is checked, and then {@link Channel#take} is called, as two
 * separate steps. Another consumer can take the last item in between, after which this consumer
 * waits in {@code take} for an item that never comes.
 */
final class Consumer extends Thread {
    private final Channel channel;
    private long sum;
    private int taken;

    Consumer(int id, Channel channel) {
        super("consumer-" + id);
        this.channel = channel;
    }

    @Override
    public void run() {
        try {
            while (!channel.isClosed() || !channel.isEmpty()) {
                sum += channel.take();
                taken++;
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
    }

    long sum() {
        return sum;
    }

    int taken() {
        return taken;
    }
}
