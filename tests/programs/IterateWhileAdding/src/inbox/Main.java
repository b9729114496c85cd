package inbox;

import java.util.ArrayList;
import java.util.List;

/**
 * An inbox that a delivery thread adds to while main reads it.
 *
 * <p>main iterates the list with a for-each loop; if the delivery thread's add comes between
 * two of the iterator's steps, the next step throws ConcurrentModificationException (one
 * preemption of main inside its loop, two threads).
 */
public class Main {
    public static void main(String[] args) throws Exception {
        List<String> inbox = new ArrayList<>(List.of("hello", "how are you", "bye"));
        Thread delivery = new Thread(() -> inbox.add("one more thing"));
        delivery.start();
        int chars = 0;
        for (String message : inbox) {
            chars += message.length();
        }
        delivery.join();
        System.out.println(chars + " characters read");
    }
}
