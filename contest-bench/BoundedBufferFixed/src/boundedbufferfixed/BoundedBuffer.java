package boundedbufferfixed;

/**
 * A bounded FIFO buffer whose producers and consumers wait on one monitor, in loops (so spurious
 * wake-ups are harmless), and signal with {@code notifyAll}: every waiter wakes and re-checks, so
 * the one that can go on always does.
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
        notifyAll(); // the fix: wake every waiter, each re-checks its condition
    }

    synchronized Object take() throws InterruptedException {
        while (count == 0) {
            wait();
        }
        Object item = slots[head];
        slots[head] = null;
        head = (head + 1) % slots.length;
        count--;
        notifyAll(); // the fix: wake every waiter, each re-checks its condition
        return item;
    }
}
