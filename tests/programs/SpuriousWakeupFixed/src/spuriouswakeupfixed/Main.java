package spuriouswakeupfixed;

/**
 * SpuriousWakeup with the wait in a while loop: the receiver leaves the loop only with the letter
 * in the box, whatever wakes it.
 */
public class Main {
    static final class Mailbox {
        private String letter;

        synchronized void deliver(String text) {
            letter = text;
            notifyAll();
        }

        synchronized String receive() throws InterruptedException {
            while (letter == null) { // a spurious wake-up only costs another check
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
