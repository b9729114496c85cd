package exitfromworker;

/**
 * Hostile: a worker finds a bad record and calls System.exit(3) while main is still waiting for
 * it. The JVM would end at once with status 3; rankcheck must not let the exit kill its own
 * runner, and must report the execution as failed (status 3, not the expected 0).
 */
public class Main {
    static final String[] records = {"12", "7", "x9", "3"};
    static int sum;

    public static void main(String[] args) throws InterruptedException {
        Thread checker = new Thread(() -> {
            for (String r : records) {
                if (!r.chars().allMatch(Character::isDigit)) {
                    System.err.println("bad record " + r + ", giving up");
                    System.exit(3);
                }
                sum += Integer.parseInt(r);
            }
        }, "checker");
        checker.start();
        checker.join();
        System.out.println("sum = " + sum);
    }
}
