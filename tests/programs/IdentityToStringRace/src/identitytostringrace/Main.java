package identitytostringrace;

/**
 * Two unnamed threads each want the one ticket of the day: the first to come issues it, the
 * second uses it. The buggy {@code issue} checks and sets {@code current} without a lock, so both
 * threads can issue a ticket. (c, v, t) = (1, 1, 2). The message prints both tickets with
 * Object.toString, whose text is the class name and the identity hash code.
 */
public class Main {
    static class Ticket {
    }

    static Ticket current;
    static final Ticket[] held = new Ticket[2];

    static Ticket issue() {
        Ticket t = current;
        if (t == null) {
            t = new Ticket();
            current = t;
        }
        return t;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(() -> held[0] = issue());
        Thread b = new Thread(() -> held[1] = issue());
        a.start();
        b.start();
        a.join();
        b.join();
        if (held[0] != held[1]) {
            throw new IllegalStateException("two tickets issued: " + held[0] + " and " + held[1]);
        }
        System.out.println("one ticket for both");
    }
}
