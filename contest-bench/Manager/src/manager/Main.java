package manager;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * Manager: worker threads repeatedly allocate a block from a shared block manager and release it;
 * at the end every block must be free again.
 *
 * <p>Failing interleaving (two preemptions, two threads): worker A allocates a block and is
 * preempted right after (at its monitorexit); worker B allocates the other block, enters
 * {@code release}, reads {@code freeCount} and is preempted before storing its block (at the free
 * stack); A releases into the same slot and ends; B stores its block there and sets the same
 * count, so A's release is lost: the manager ends with a block missing (or, with more rounds, a
 * block is handed out twice or a worker waits forever). One preemption is not enough: a release
 * can only be lost to a concurrent release or allocation that is itself incomplete when the
 * stale write lands, and a thread left to run on always completes its allocate/release pair.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (workers/blocks/rounds 2/2/1, 3/2/10, 5/3/200).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int workers;
        int blocks;
        int rounds;
        switch (level) {
            case "little" -> { workers = 2; blocks = 2; rounds = 1; }
            case "average" -> { workers = 3; blocks = 2; rounds = 10; }
            case "lot" -> { workers = 5; blocks = 3; rounds = 200; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        BlockManager manager = new BlockManager(blocks);
        Worker[] crew = new Worker[workers];
        for (int i = 0; i < workers; i++) {
            crew[i] = new Worker(i, manager, rounds);
            crew[i].start();
        }
        for (Worker w : crew) {
            w.join();
        }
        boolean ok = manager.freeCount() == manager.blocks();
        String verdict = ok
                ? "Manager: OK all " + manager.blocks() + " blocks free"
                : "Manager: BUG lost a release: " + manager.freeCount() + " of " + manager.blocks() + " blocks free";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
