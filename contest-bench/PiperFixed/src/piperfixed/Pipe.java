package piperfixed;

/**
 * A bounded pipe of reservation requests between travel agents and booking clerks. Both ends
 * hold the pipe's lock and wait in a {@code while} loop: once woken they look again, so another
 * thread emptying (or filling) the pipe first, or a spurious wake-up, does no harm.
 */
final class Pipe {
    private final String[] slots;
    private int head;
    private int count;

    Pipe(int capacity) {
        slots = new String[capacity];
    }

    synchronized void put(String request) throws InterruptedException {
        while (count == slots.length) { // the fix: re-check after every wake-up
            wait();
        }
        if (count == slots.length) {
            throw new AssertionError("Piper: BUG request " + request + " put into a full pipe");
        }
        slots[(head + count) % slots.length] = request;
        count++;
        notifyAll();
    }

    synchronized String take() throws InterruptedException {
        while (count == 0) { // the fix: re-check after every wake-up
            wait();
        }
        if (count == 0) {
            throw new AssertionError("Piper: BUG " + Thread.currentThread().getName()
                    + " took a request from an empty pipe");
        }
        String request = slots[head];
        slots[head] = null;
        head = (head + 1) % slots.length;
        count--;
        notifyAll();
        return request;
    }
}
