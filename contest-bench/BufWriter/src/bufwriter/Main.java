package bufwriter;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * BufWriter: writer threads append records to one shared buffer while a checker thread waits for
 * them and then verifies the buffer's contents.
 *
 * <p>Failing interleaving (one preemption, at {@code Buffer.length}, two threads): writer A reads
 * {@code length} in {@code append} and is preempted before writing it; writer B appends (and may
 * finish); A resumes, reserves the same room again and overwrites B's record, so the buffer is
 * one record short and the checker reports it.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (writers 2/3/3, records each 1/10/200).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        char[] letters;
        int records;
        switch (level) {
            case "little" -> { letters = new char[] {'a', 'b'}; records = 1; }
            case "average" -> { letters = new char[] {'a', 'b', 'c'}; records = 10; }
            case "lot" -> { letters = new char[] {'a', 'b', 'c'}; records = 200; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        int size = 2;
        Buffer buffer = new Buffer(letters.length * records * size);
        Finish finish = new Finish(letters.length);
        Checker checker = new Checker(buffer, finish, letters, size, records);
        checker.start();
        for (char letter : letters) {
            new Writer(letter, size, records, buffer, finish).start();
        }
        checker.join();
        String problem = checker.problem();
        String verdict = problem == null ? "BufWriter: OK" : "BufWriter: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
