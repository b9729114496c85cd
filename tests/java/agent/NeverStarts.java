/** A Thread subclass whose start() never starts it; joining it must not hang. */
public class NeverStarts {
    static class Lazy extends Thread {
        @Override
        public void start() {
            System.out.println("start() ignored");
        }

        @Override
        public void run() {
            System.out.println("run?!");
        }
    }

    public static void main(String[] args) throws Exception {
        Lazy t = new Lazy();
        t.start();
        t.join();
        System.out.println("joined");
    }
}
