package bufferif;

import java.util.ArrayDeque;
import java.util.Deque;

public class Main {
    static final class Buffer {
        private final Deque<Integer> items = new ArrayDeque<>();
        private final int capacity = 2;

        synchronized void put(int item) throws InterruptedException {
            if (items.size() == capacity) {
                wait();
            }
            items.addLast(item);
            notifyAll();
        }

        synchronized int take() throws InterruptedException {
            if (items.isEmpty()) {
                wait();
            }
            int item = items.removeFirst();
            notifyAll();
            return item;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Buffer buffer = new Buffer();
        Thread[] threads = new Thread[6];
        for (int i = 0; i < 3; i++) {
            final int base = i * 10;
            threads[i] = new Thread(() -> {
                try {
                    for (int k = 0; k < 2; k++) {
                        buffer.put(base + k);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            threads[i + 3] = new Thread(() -> {
                try {
                    for (int k = 0; k < 2; k++) {
                        buffer.take();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("moved 6 items");
    }
}
