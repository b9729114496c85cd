package producerconsumerfixed;

/** Takes items until the channel reports the end of the stream, adding them up. */
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
            for (Integer item = channel.takeOrEnd(); item != null; item = channel.takeOrEnd()) {
                sum += item;
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
