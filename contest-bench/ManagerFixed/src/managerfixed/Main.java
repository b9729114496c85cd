package managerfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * ManagerFixed: worker threads repeatedly allocate a block from a shared block manager and release it;
 * at the end every block must be free again.
 *
 * <p>Fixed variant: {@code release} is synchronized like {@code allocate}, so no release is
 * lost; allocation waits in a loop, so a spurious wake-up is harmless.
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
