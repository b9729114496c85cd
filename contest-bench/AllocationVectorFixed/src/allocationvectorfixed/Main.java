package allocationvectorfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * AllocationVectorFixed: two clients allocate blocks of a shared vector, each block in one atomic
 * find-and-mark step, and finally free all of theirs.
 *
 * <p>Fixed variant: {@code BlockVector.allocate} finds and marks a block in one synchronized
 * step, so a block is never handed to two clients.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (blocks 4/64/4000, blocks per client 1/8/100).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int blocks;
        int perClient;
        switch (level) {
            case "little" -> { blocks = 4; perClient = 1; }
            case "average" -> { blocks = 64; perClient = 8; }
            case "lot" -> { blocks = 4000; perClient = 100; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        BlockVector vector = new BlockVector(blocks);
        Client[] clients = {new Client(vector, 1, perClient), new Client(vector, 2, perClient)};
        for (Client c : clients) {
            c.start();
        }
        String failure = null;
        for (Client c : clients) {
            c.join();
            failure = failure != null ? failure : c.failure();
        }
        boolean allFree = true;
        for (int b = 0; b < vector.size(); b++) {
            allFree &= vector.isBlockFree(b);
        }
        if (failure == null && !allFree) {
            failure = "AllocationVector: BUG blocks still allocated after every client freed its own";
        }
        boolean ok = failure == null;
        String verdict = ok ? "AllocationVector: OK every block free again" : failure;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
