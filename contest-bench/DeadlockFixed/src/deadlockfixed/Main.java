package deadlockfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * DeadlockFixed: clerks transfer money between the accounts of a ring, some clockwise and some
 * counter-clockwise; a transfer locks both accounts, lower number first.
 *
 * <p>Fixed variant: a transfer locks the lower-numbered account first, so the locks are always
 * taken in one global order and no deadlock is possible.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (accounts/clerks/transfers each 2/2/1,
 * 3/4/10, 3/6/1000).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int accounts;
        int clerks;
        int transfers;
        switch (level) {
            case "little" -> { accounts = 2; clerks = 2; transfers = 1; }
            case "average" -> { accounts = 3; clerks = 4; transfers = 10; }
            case "lot" -> { accounts = 3; clerks = 6; transfers = 1000; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        int opening = 1000;
        Bank bank = new Bank(accounts, opening);
        Clerk[] staff = new Clerk[clerks];
        for (int i = 0; i < clerks; i++) {
            // Clerks come in pairs working between two neighbouring accounts in opposite directions.
            int a = (i / 2) % accounts;
            int b = (a + 1) % accounts;
            int from = i % 2 == 0 ? a : b;
            int to = i % 2 == 0 ? b : a;
            staff[i] = new Clerk(i, bank, from, to, transfers);
            staff[i].start();
        }
        for (Clerk c : staff) {
            c.join();
        }
        boolean ok = bank.total() == accounts * opening;
        String verdict = ok
                ? "Deadlock: OK all transfers done, total " + bank.total()
                : "Deadlock: BUG money created or destroyed: total " + bank.total();
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
