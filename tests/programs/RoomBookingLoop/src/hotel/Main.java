package hotel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    static final int ROOMS = 3;
    static final AtomicInteger booked = new AtomicInteger();

    static boolean tryBook() {
        if (booked.get() < ROOMS) {
            booked.incrementAndGet();
            return true;
        }
        return false;
    }

    public static void main(String[] args) throws InterruptedException {
        List<Thread> desks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread desk = new Thread(() -> {
                int mine = 0;
                while (tryBook()) {
                    mine++;
                }
                System.out.println(Thread.currentThread().getName() + " booked " + mine);
            });
            desks.add(desk);
            desk.start();
        }
        for (Thread desk : desks) {
            desk.join();
        }
        if (booked.get() > ROOMS) {
            System.err.println("overbooked: " + booked.get() + " of " + ROOMS + " rooms");
            System.exit(1);
        }
    }
}
