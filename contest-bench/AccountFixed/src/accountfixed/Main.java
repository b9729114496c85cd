package accountfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * AccountFixed: Account with {@code deposit} synchronized like {@code withdraw}; every update
 * of the balance is atomic, so the audit holds under every interleaving.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (customers per teller: 2, 20, 200).
 */
public final class Main {
    private static final int OPENING = 100;

    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int customers = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 2;
            case "average" -> 20;
            case "lot" -> 200;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        Account account = new Account("shared", OPENING);
        Teller[] tellers = {
            new Teller("teller-1", account, customers, 11), new Teller("teller-2", account, customers, 22)
        };
        for (Teller t : tellers) {
            t.start();
        }
        int expected = OPENING;
        for (Teller t : tellers) {
            t.join();
            expected += t.net();
        }
        int actual = account.balance();
        boolean ok = actual == expected;
        String verdict = ok
                ? "Account: OK balance " + actual
                : "Account: BUG lost update: balance " + actual + ", booked " + expected;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
