package threadnameusebeforeinit;

/**
 * Main starts an unnamed worker that reads a config and prints it with its thread name. The
 * buggy main sets the config only after starting the worker, so the worker can print
 * "Thread-0 read config null". One preemption of main, after start and before the write:
 * (c, v, t) = (1, 1, 2).
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
