package loader;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * Loader: a loader thread fills a service registry while worker threads, after sleeping a little
 * "to let the loader finish", look services up.
 *
 * <p>Failing interleaving (no preemption, two threads): a worker runs before the loader; its
 * sleep changes nothing about the order (under rankcheck time is virtual, and on a real JVM a
 * slow loader does the same), so it looks up an unloaded registry: "Loader: BUG". The switch from
 * main to the worker is free (main blocks in join) and the worker continues after its sleep.
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
