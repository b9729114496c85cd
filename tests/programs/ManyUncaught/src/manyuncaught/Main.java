package manyuncaught;

/**
 * Hostile: eight workers each die with an uncaught exception, one after another as they are
 * scheduled, while main joins them all and then returns normally (so the JVM's exit status is 0).
 * rankcheck must report the execution as failed, keep the first uncaught exception, and not lose
 * the report or hang on the later ones.
 */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        Thread[] workers = new Thread[8];
        for (int i = 0; i < workers.length; i++) {
            final int me = i;
            workers[i] = new Thread(() -> {
                throw new IllegalStateException("worker " + me + " failed");
            }, "worker-" + i);
            workers[i].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        System.out.println("main ends normally");
    }
}
