package account;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * Account: two tellers serve customers at one shared account; the bank then checks that the
 * balance equals the opening balance plus everything the tellers booked.
 *
 * <p>Failing interleaving (one preemption, at the account's {@code balance}, two threads):
 * teller A reads {@code balance} in {@code deposit} and is preempted before writing it back;
 * teller B updates the balance (a deposit or a withdrawal) and runs on; A resumes and writes its
 * stale sum, so B's update is lost and the audit fails.
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
