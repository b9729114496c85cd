package orders;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** QueueConsumersTotal fixed: the total is added under one lock. */
public class Main {
    static int total;

    public static void main(String[] args) throws Exception {
        BlockingQueue<Integer> amounts = new LinkedBlockingQueue<>();
        Runnable consumer = () -> {
            try {
                while (true) {
                    int amount = amounts.take();
                    if (amount < 0) {
                        return;
                    }
                    synchronized (Main.class) {
                        total += amount;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread first = new Thread(consumer);
        Thread second = new Thread(consumer);
        first.start();
        second.start();
        for (int amount : new int[] {5, 10, 20}) {
            amounts.put(amount);
        }
        amounts.put(-1);
        amounts.put(-1);
        first.join();
        second.join();
        System.out.println("total " + total);
        if (total != 35) {
            throw new AssertionError("expected a total of 35, got " + total);
        }
    }
}
