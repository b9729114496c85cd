package garagemanager;

import java.util.ArrayList;
import java.util.List;

/**
 * The garage's books: mechanics log the work they did, the manager bills finished jobs. Both go
 * through the garage's lock.
 */
final class Garage {
    private static final int RATE = 40;

    private final List<String> workLog = new ArrayList<>();
    private int billed;
    private int invoices;

    synchronized void logWork(Job job, String mechanic) {
        workLog.add(mechanic + " repaired " + job.car());
    }

    /** Called with the garage's lock held. */
    void bill(Job job) {
        billed += job.hours() * RATE;
        invoices++;
    }

    synchronized int invoices() {
        return invoices;
    }

    synchronized int logged() {
        return workLog.size();
    }

    synchronized int billed() {
        return billed;
    }
}
