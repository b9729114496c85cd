package loader;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * Loader: a loader thread fills a service registry while worker threads, after sleeping a little
 * "to let the loader finish", look services up.
 *
 * <p>Failing interleaving (no preemption, two threads): a worker's lookup runs before the loader
 * has published. The sleeps order nothing: rankcheck's time is virtual and a sleep is a point
 * where any thread may go on, so the worker may continue after its nap while the loader is still
 * reading (the loader's own short sleeps, standing for disk reads, give that chance even to a
 * scheduler that lets other threads run first while one sleeps). On a real JVM it takes a loader
 * slower than the nap. Every switch is free: main blocks in join, a sleep hands over freely.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (workers 1, 3, 8).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        int workers = switch (args.length > 1 ? args[1] : "little") {
            case "little" -> 1;
            case "average" -> 3;
            case "lot" -> 8;
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        };
        Registry registry = new Registry();
        Thread loader = new LoaderThread(registry);
        Worker[] crew = new Worker[workers];
        loader.start();
        for (int i = 0; i < workers; i++) {
            crew[i] = new Worker(i, registry, 10);
            crew[i].start();
        }
        loader.join();
        int served = 0;
        for (Worker w : crew) {
            w.join();
            served += w.served();
        }
        boolean ok = served == 3 * workers;
        String verdict = ok
                ? "Loader: OK " + served + " lookups"
                : "Loader: BUG " + served + " of " + 3 * workers + " lookups succeeded";
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (!ok) {
            throw new AssertionError(verdict);
        }
    }
}
