package threadnameusebeforeinit;

/**
 * Main starts an unnamed worker that reads a config and prints it with its thread name. The
 * buggy main sets the config only after starting the worker, so the worker can print
 * "Thread-0 read config null". No preemption under RankChecker counting (the started worker
 * takes over from main before the write); CHESS counting needs one: (c, v, t) = (0, 0, 2).
 */
public class Main {
    static String config;

    public static void main(String[] args) throws InterruptedException {
        Thread worker = new Thread(() -> {
            String seen = config;
            System.out.println(Thread.currentThread().getName() + " read config " + seen);
        });
        
        worker.start();
        config = "ready";
        worker.join();
        System.out.println("config " + config);
    }
}
