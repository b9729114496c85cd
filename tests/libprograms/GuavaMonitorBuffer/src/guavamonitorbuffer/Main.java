package guavamonitorbuffer;

import com.google.common.util.concurrent.Monitor;

public class Main {
    static final class Buffer {
        private final Monitor monitor = new Monitor();
        private final int[] slots = new int[2];
        private int size;
        private final Monitor.Guard notFull = monitor.newGuard(() -> size < slots.length);
        private final Monitor.Guard notEmpty = monitor.newGuard(() -> size > 0);

        void put(int v) throws InterruptedException {
            monitor.enterWhen(notFull);
            try {
                slots[size++] = v;
            } finally {
                monitor.leave();
            }
        }

        int take() throws InterruptedException {
            monitor.enterWhen(notEmpty);
            try {
                int v = slots[0];
                slots[0] = slots[1];
                size--;
                return v;
            } finally {
                monitor.leave();
            }
        }
    }

    static int sum;

    public static void main(String[] args) throws Exception {
        Buffer buffer = new Buffer();
        Thread producer = new Thread(() -> {
            try {
                for (int i = 1; i <= 6; i++) {
                    buffer.put(i);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < 6; i++) {
                    sum += buffer.take();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        producer.start();
        consumer.start();
        producer.join();
        consumer.join();
        if (sum != 21) {
            throw new IllegalStateException("sum " + sum);
        }
        System.out.println("sum " + sum);
    }
}
