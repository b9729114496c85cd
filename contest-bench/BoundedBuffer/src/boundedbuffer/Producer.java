package boundedbuffer;

/** Puts {@code items} items into the buffer. */
final class Producer extends Thread {
    private final BoundedBuffer buffer;
    private final int items;

    Producer(int id, BoundedBuffer buffer, int items) {
        super("producer-" + id);
        this.buffer = buffer;
        this.items = items;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < items; i++) {
                buffer.put(getName() + ":" + i);
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
    }
}
