package groupbooking;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * GroupBooking: one agent books seats for a group while single travellers book seats of the
 * same flight (and another agent books a seat on another flight); no flight may be overbooked.
 * After the RankChecker paper's Table 4, which varies a bug's thread bound: the group needs
 * {@code g} seats and the flight has {@code g + s - 1} free, so the group's stale room check
 * overbooks the flight only if all {@code s} single travellers book in between.
 *
 * <p>Failing interleaving at "little" (g = 2, s = 2; one preemption, three threads): the group
 * agent sees 3 free seats, enough for 2, and is preempted before taking them (at its
 * monitorenter); both single travellers book a seat (1 left); the group agent takes 2: -1 free.
 * With only one traveller in between the group still fits, so the bug needs the relative order of
 * the group agent and both travellers (t = 3). At "average" (g = 3, s = 3) it needs four.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (group/travellers 2/2, 3/3, 5/20; plus one
 * agent for another flight).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int group;
        int singles;
        switch (level) {
            case "little" -> { group = 2; singles = 2; }
            case "average" -> { group = 3; singles = 3; }
            case "lot" -> { group = 5; singles = 20; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Flight flight = new Flight("RC101", group + singles - 1);
        Flight other = new Flight("RC202", 1);
        Agent[] agents = new Agent[singles + 2];
        agents[0] = new Agent("group-agent", flight, group);
        for (int i = 0; i < singles; i++) {
            agents[1 + i] = new Agent("traveller-" + i, flight, 1);
        }
        agents[singles + 1] = new Agent("other-agent", other, 1);
        for (Agent a : agents) {
            a.start();
        }
        String problem = null;
        int sold = 0;
        for (Agent a : agents) {
            a.join();
            sold += a.flight() == flight ? a.booked() : 0;
        }
        for (Flight f : new Flight[] {flight, other}) {
            if (f.free() < 0 && problem == null) {
                problem = f.name() + " overbooked: " + f.free() + " free seats";
            }
        }
        if (problem == null && sold + flight.free() != flight.capacity()) {
            problem = "seats do not add up: " + sold + " sold, " + flight.free() + " free of " + flight.capacity();
        }
        String verdict = problem == null
                ? "GroupBooking: OK " + sold + " of " + flight.capacity() + " seats sold"
                : "GroupBooking: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
