package boundedbuffer;

/**
 * A bounded FIFO buffer whose producers and consumers wait on one monitor, in loops (so spurious
 * wake-ups are harmless), but signal with {@code notify}: one waiter is woken, and it may be a
 * thread of the wrong kind (a consumer woken by a consumer), while the one that could go on keeps
 * waiting.
 */
final class BoundedBuffer {
    private final Object[] slots;
    private int head;
    private int count;

    BoundedBuffer(int capacity) {
        slots = new Object[capacity];
    }

    synchronized void put(Object item) throws InterruptedException {
        while (count == slots.length) {
            wait();
        }
        slots[(head + count) % slots.length] = item;
        count++;
        notify(); // the bug: may wake another producer instead of a consumer
    }

    synchronized Object take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        Object item = slots[head];
        slots[head] = null;
        head = (head + 1) % slots.length;
        count--;
        notify(); // the bug: may wake another consumer instead of a producer
        return item;
    }
}
