package stock;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/** Restocking between two warehouses while a heartbeat reports that the service is alive. */
public class Main {
    static final class Warehouse {
        final int number;
        final ReentrantLock lock = new ReentrantLock();
        int units;

        Warehouse(int number, int units) {
            this.number = number;
            this.units = units;
        }
    }

    static void move(Warehouse from, Warehouse to, int units) {
        from.lock.lock();
        try {
            to.lock.lock();
            try {
                from.units -= units;
                to.units += units;
            } finally {
                to.lock.unlock();
            }
        } finally {
            from.lock.unlock();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor();
        heartbeat.scheduleAtFixedRate(() -> System.out.println("alive"), 0, 100, TimeUnit.MILLISECONDS);

        Warehouse north = new Warehouse(1, 40);
        Warehouse south = new Warehouse(2, 25);
        Thread toSouth = new Thread(() -> move(north, south, 10));
        Thread toNorth = new Thread(() -> move(south, north, 5));
        toSouth.start();
        toNorth.start();
        toSouth.join();
        toNorth.join();
        heartbeat.shutdownNow();
        System.out.println("north " + north.units + ", south " + south.units);
    }
}
