package piper;

/**
 * A bounded pipe of reservation requests between travel agents and booking clerks. Both ends
 * hold the pipe's lock and wait when they cannot go on, but they wait under an {@code if}: once
 * woken they do not look again, although another thread may have emptied (or filled) the pipe
 * before they got the lock back, and a wait may also end without any notification.
 */
final class Pipe {
    private final String[] slots;
    private int head;
    private int count;

    Pipe(int capacity) {
        slots = new String[capacity];
    }

    synchronized void put(String request) throws InterruptedException {
        if (count == slots.length) { // the bug: `if`, not `while`
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
        if (count == 0) { // the bug: `if`, not `while`
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
