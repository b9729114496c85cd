package spuriouswakeup;

/**
 * A mailbox holds one letter that is never taken back. The receiver waits for it under an
 * {@code if}; main delivers it and notifies.
 *
 * <p>Without spurious wake-ups this is correct: the receiver waits only while the box is empty,
 * and the only notify comes after the letter is in, so a woken receiver always finds it. With a
 * spurious wake-up (allowed by the JVM specification, and a choice of rankcheck's scheduler when
 * spurious wake-ups are enabled) the receiver returns from wait before delivery, reads null and
 * throws. The receiver has to wait before main delivers, which it does when it outranks main at
 * its start: (c, v, t) = (0, 0, 2), with spurious wake-ups on.
 */
public class Main {
    static final class Mailbox {
        private String letter;

        synchronized void deliver(String text) {
            letter = text;
            notifyAll();
        }

        synchronized String receive() throws InterruptedException {
            if (letter == null) { // BUG: correct only if wait never returns on its own
                wait();
            }
            if (letter == null) {
                throw new AssertionError("woke up without a letter");
            }
            return letter;
        }
    }

    static final Mailbox box = new Mailbox();
    static String received;

    public static void main(String[] args) throws InterruptedException {
        Thread receiver = new Thread(() -> {
            try {
                received = box.receive();
            } catch (InterruptedException e) {
                throw new AssertionError("nobody interrupts in this program", e);
            }
        }, "receiver");
        receiver.start();
        box.deliver("hello");
        receiver.join();
        System.out.println("received " + received);
    }
}
