package producerconsumer;

/** Puts the items {@code first .. first + count - 1}, then says it is done. */
final class Producer extends Thread {
    private final Channel channel;
    private final int first;
    private final int count;

    Producer(int id, Channel channel, int first, int count) {
        super("producer-" + id);
        this.channel = channel;
        this.first = first;
        this.count = count;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < count; i++) {
                channel.put(first + i);
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        } finally {
            channel.producerDone();
        }
    }
}
