package piper;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * Piper: travel agents pass reservation requests through a bounded pipe to booking clerks, who
 * book them on a flight; at the end every request must be booked once.
 *
 * <p>Failing interleaving (no preemption, three threads): both clerks find the pipe empty and
 * wait; the agent puts a request, wakes both (notifyAll), and blocks putting its second request
 * into the full pipe; clerk A takes the request; clerk B gets the lock, does not re-check under its
 * {@code if}, and takes from the empty pipe: "Piper: BUG". Every switch there is forced by a
 * thread blocking or ending. With spurious wake-ups a single clerk that waits before the agent
 * puts anything fails the same way.
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
