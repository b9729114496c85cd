package criticalfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * CriticalFixed: two threads guard a critical section with a busy-waiting protocol (Peterson's)
 * that gives mutual exclusion.
 *
 * <p>Fixed variant: the door is Peterson's algorithm on volatile fields, which gives mutual
 * exclusion under every interleaving. Its busy wait yields; under strict priority scheduling it
 * ends because the scheduler lowers the priority of a thread that keeps yielding.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (rounds per thread 1, 10, 1000).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int rounds = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 1;
            case "average" -> 10;
            case "lot" -> 1000;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        Door door = new Door();
        Room room = new Room();
        Visitor[] pair = {new Visitor(0, door, room, rounds), new Visitor(1, door, room, rounds)};
        for (Visitor v : pair) {
            v.start();
        }
        for (Visitor v : pair) {
            v.join();
        }
        boolean ok = room.visits() == 2 * rounds;
        String verdict = ok
                ? "Critical: OK " + room.visits() + " visits, one at a time"
                : "Critical: BUG " + room.visits() + " visits counted instead of " + 2 * rounds;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
