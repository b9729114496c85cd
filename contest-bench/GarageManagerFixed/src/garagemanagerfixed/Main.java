package garagemanagerfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * GarageManagerFixed: mechanics repair cars and log their work in the garage's books; a manager bills
 * each job once it is done. At the end every job must be logged and billed.
 *
 * <p>Fixed variant: the manager waits for a job before taking the garage's lock, so it never
 * blocks inside the critical section.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (mechanics 1, 3, 5).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int mechanics = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 1;
            case "average" -> 3;
            case "lot" -> 5;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        Garage garage = new Garage();
        Job[] jobs = new Job[mechanics];
        Thread[] staff = new Thread[mechanics + 1];
        for (int i = 0; i < mechanics; i++) {
            jobs[i] = new Job("car-" + i, 1 + i % 3);
            staff[i] = new Mechanic(i, garage, jobs[i]);
        }
        staff[mechanics] = new Manager(garage, jobs);
        for (Thread t : staff) {
            t.start();
        }
        for (Thread t : staff) {
            t.join();
        }
        boolean ok = garage.invoices() == mechanics && garage.logged() == mechanics;
        String verdict = ok
                ? "GarageManager: OK " + mechanics + " jobs billed, " + garage.billed() + " in total"
                : "GarageManager: BUG " + garage.invoices() + " invoices and " + garage.logged() + " log entries for "
                        + mechanics + " jobs";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
