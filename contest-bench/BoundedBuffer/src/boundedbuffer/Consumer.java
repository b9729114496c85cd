package boundedbuffer;

/** Takes {@code items} items from the buffer. */
final class Consumer extends Thread {
    private final BoundedBuffer buffer;
    private final int items;
    private int taken;

    Consumer(int id, BoundedBuffer buffer, int items) {
        super("consumer-" + id);
        this.buffer = buffer;
        this.items = items;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < items; i++) {
                buffer.take();
                taken++;
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
    }

    int taken() {
        return taken;
    }
}
