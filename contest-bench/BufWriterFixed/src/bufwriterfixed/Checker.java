package bufwriterfixed;

/**
 * Waits until every writer is done and then checks the buffer: its length must be the sum of
 * all records, every record slot must hold one letter only, and each writer's letter must fill
 * exactly its records.
 */
final class Checker extends Thread {
    private final Buffer buffer;
    private final Finish finish;
    private final char[] letters;
    private final int size;
    private final int records;
    private String problem;

    Checker(Buffer buffer, Finish finish, char[] letters, int size, int records) {
        super("checker");
        this.buffer = buffer;
        this.finish = finish;
        this.letters = letters;
        this.size = size;
        this.records = records;
    }

    @Override
    public void run() {
        try {
            finish.awaitWriters();
        } catch (InterruptedException e) {
            problem = "checker interrupted";
            return;
        }
        problem = check();
    }

    private String check() {
        int expected = letters.length * records * size;
        if (buffer.length() != expected) {
            return "length " + buffer.length() + " instead of " + expected;
        }
        int[] seen = new int[letters.length];
        for (int start = 0; start < expected; start += size) {
            char first = buffer.at(start);
            for (int i = 1; i < size; i++) {
                if (buffer.at(start + i) != first) {
                    return "record at " + start + " is mixed";
                }
            }
            for (int w = 0; w < letters.length; w++) {
                if (letters[w] == first) {
                    seen[w]++;
                }
            }
        }
        for (int w = 0; w < letters.length; w++) {
            if (seen[w] != records) {
                return "writer " + letters[w] + " has " + seen[w] + " records instead of " + records;
            }
        }
        return null;
    }

    /** What the check found wrong, or null (read after join). */
    String problem() {
        return problem;
    }
}
