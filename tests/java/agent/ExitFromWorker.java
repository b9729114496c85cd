/** A worker calls System.exit(3) while main waits for it: the execution ends, not the JVM. */
public class ExitFromWorker {
    public static void main(String[] args) throws Exception {
        Thread w = new Thread(() -> {
            System.out.println("worker exits");
            System.exit(3);
        });
        w.start();
        w.join();
        System.out.println("main after join?!");
    }
}
