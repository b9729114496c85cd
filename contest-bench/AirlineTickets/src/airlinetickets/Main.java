package airlinetickets;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * AirlineTickets: several agents sell the seats of one flight; afterwards the airline checks that
 * no more tickets were sold than the plane has seats.
 *
 * <p>Failing interleaving (one preemption, at {@code Flight.sold}, two threads): agent A reads
 * {@code sold == seats - 1}, passes the check and is preempted before writing {@code sold}; agent
 * B sells the last seat and stops (the flight is full); A resumes and sells one seat more.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (agents and seats: 2/2, 5/10, 10/100).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int agents;
        int seats;
        switch (level) {
            case "little" -> { agents = 2; seats = 2; }
            case "average" -> { agents = 5; seats = 10; }
            case "lot" -> { agents = 10; seats = 100; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Flight flight = new Flight(seats);
        Seller[] sellers = new Seller[agents];
        for (int i = 0; i < agents; i++) {
            sellers[i] = new Seller(i, flight);
            sellers[i].start();
        }
        int tickets = 0;
        for (Seller s : sellers) {
            s.join();
            tickets += s.tickets();
        }
        boolean ok = tickets <= flight.seats() && flight.sold() <= flight.seats();
        String verdict = (ok ? "AirlineTickets: OK sold " : "AirlineTickets: BUG oversold: sold ")
                + tickets + " tickets for " + flight.seats() + " seats";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
