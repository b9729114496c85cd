package throwinloop;

/**
 * Hostile: a parser thread meets 100 malformed records in a row; each throws a
 * NumberFormatException that the thread catches and counts, and after the 100th it gives up with
 * an IllegalStateException that escapes the thread. rankcheck must not report the 100 caught
 * exceptions and must report the one that escapes (in every execution).
 */
public class Main {
    static final int RECORDS = 100;
    static int malformed;

    public static void main(String[] args) throws InterruptedException {
        Thread parser = new Thread(() -> {
            for (int i = 0; i < RECORDS; i++) {
                try {
                    Integer.parseInt("record-" + i);
                } catch (NumberFormatException e) {
                    malformed++;
                }
            }
            if (malformed == RECORDS) {
                throw new IllegalStateException("all " + malformed + " records malformed, giving up");
            }
        }, "parser");
        parser.start();
        parser.join();
        System.out.println("malformed: " + malformed);
    }
}
