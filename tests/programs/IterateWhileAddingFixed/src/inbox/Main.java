package inbox;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;

/** IterateWhileAdding fixed: a CopyOnWriteArrayList iterates over a snapshot. */
public class Main {
    public static void main(String[] args) throws Exception {
        List<String> inbox = new CopyOnWriteArrayList<>(List.of("hello", "how are you", "bye"));
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
