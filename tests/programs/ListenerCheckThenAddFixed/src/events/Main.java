package events;

import java.util.HashSet;
import java.util.concurrent.CopyOnWriteArrayList;

public class Main {
    private static final CopyOnWriteArrayList<String> listeners = new CopyOnWriteArrayList<>();

    static void register(String listener) {
        listeners.addIfAbsent(listener);
    }

    public static void main(String[] args) throws InterruptedException {
        Thread ui = new Thread(() -> register("audit-log"));
        Thread net = new Thread(() -> register("audit-log"));
        ui.start();
        net.start();
        ui.join();
        net.join();
        System.out.println("listeners: " + listeners);
        if (new HashSet<>(listeners).size() != listeners.size()) {
            throw new IllegalStateException("listener registered twice: " + listeners);
        }
    }
}
