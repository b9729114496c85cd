package piperfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * PiperFixed: travel agents pass reservation requests through a bounded pipe to booking clerks, who
 * book them on a flight; at the end every request must be booked once.
 *
 * <p>Fixed variant: the pipe's waits are in {@code while} loops, so a woken clerk or agent
 * re-checks the pipe; correct under any interleaving and spurious wake-ups.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (agents/clerks/requests per agent/pipe size
 * 1/2/2/1, 2/2/5/2, 4/4/50/3).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int agents;
        int clerks;
        int perAgent;
        int capacity;
        switch (level) {
            case "little" -> { agents = 1; clerks = 2; perAgent = 2; capacity = 1; }
            case "average" -> { agents = 2; clerks = 2; perAgent = 5; capacity = 2; }
            case "lot" -> { agents = 4; clerks = 4; perAgent = 50; capacity = 3; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Pipe pipe = new Pipe(capacity);
        Flight flight = new Flight();
        int total = agents * perAgent;
        Thread[] staff = new Thread[agents + clerks];
        for (int c = 0; c < clerks; c++) {
            staff[c] = new Clerk(c, pipe, flight, total / clerks);
        }
        for (int a = 0; a < agents; a++) {
            staff[clerks + a] = new Agent(a, pipe, perAgent);
        }
        for (Thread t : staff) {
            t.start();
        }
        for (Thread t : staff) {
            t.join();
        }
        boolean ok = flight.booked() == total;
        String verdict = ok
                ? "Piper: OK " + total + " reservations booked"
                : "Piper: BUG " + flight.booked() + " of " + total + " reservations booked";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
