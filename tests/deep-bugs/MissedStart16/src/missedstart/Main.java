package missedstart;

import java.util.ArrayList;
import java.util.List;

public class Main {
    private final Object gate = new Object();
    private boolean open;
    private int started;

    void awaitOpen() throws InterruptedException {
        if (!open) {
            synchronized (gate) {
                gate.wait();
            }
        }
        synchronized (gate) {
            started++;
        }
    }

    void openGate() {
        open = true;
        synchronized (gate) {
            gate.notifyAll();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main m = new Main();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            Thread t = new Thread(() -> {
                try {
                    m.awaitOpen();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            workers.add(t);
            t.start();
        }
        Thread starter = new Thread(m::openGate);
        starter.start();
        starter.join();
        for (Thread t : workers) {
            t.join();
        }
        System.out.println("started " + m.started);
    }
}
