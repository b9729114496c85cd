package lotteryfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * LotteryFixed: buyer threads buy tickets while a drawer thread closes the lottery and draws the
 * winner; afterwards every ticket sold must have been in the draw and every coin accounted for.
 *
 * <p>Fixed variant: {@code buy} holds the lottery's lock like {@code draw}, so no ticket is
 * sold after the draw.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (buyers/tickets each 1/1, 4/5, 8/50).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int buyers;
        int each;
        switch (level) {
            case "little" -> { buyers = 1; each = 1; }
            case "average" -> { buyers = 4; each = 5; }
            case "lot" -> { buyers = 8; each = 50; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Lottery lottery = new Lottery(buyers * each);
        Thread[] people = new Thread[buyers + 1];
        for (int i = 0; i < buyers; i++) {
            people[i] = new Buyer(i, lottery, each);
        }
        people[buyers] = new Drawer(lottery, 2024);
        for (Thread t : people) {
            t.start();
        }
        for (Thread t : people) {
            t.join();
        }
        String problem = lottery.audit();
        String verdict = problem == null ? "Lottery: OK " + lottery.summary() : "Lottery: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
