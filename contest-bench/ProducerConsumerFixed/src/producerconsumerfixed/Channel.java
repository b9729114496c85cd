package producerconsumerfixed;

/**
 * A bounded FIFO channel of items with an end-of-stream mark. {@link #put} and {@link #take}
 * are correct monitor code (they wait in loops); the channel is closed when the last producer
 * says it is done. {@link #takeOrEnd} waits while the channel is empty
 * and open, and reports the end of the stream once it is empty and closed.
 */
final class Channel {
    private final int[] items;
    private int head;
    private int count;
    private int producers;
    private boolean closed;

    Channel(int capacity, int producers) {
        this.items = new int[capacity];
        this.producers = producers;
    }

    synchronized void put(int item) throws InterruptedException {
        while (count == items.length) {
            wait();
        }
        items[(head + count) % items.length] = item;
        count++;
        notifyAll();
    }

    /** The fix: one atomic step decides between taking an item and the end of the stream. */
    synchronized Integer takeOrEnd() throws InterruptedException {
        while (count == 0 && !closed) {
            wait();
        }
        if (count == 0) {
            return null;
        }
        int item = items[head];
        head = (head + 1) % items.length;
        count--;
        notifyAll();
        return item;
    }

    /** A producer has put all its items; the last one closes the channel. */
    synchronized void producerDone() {
        producers--;
        if (producers == 0) {
            closed = true;
            notifyAll();
        }
    }

}
