package heartbeat;

/** A heartbeat that should stop when interrupted. */
public class Main {
    static volatile int beats;

    static void beat() {
        while (!Thread.currentThread().isInterrupted()) {
            beats++;
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                // ignored: the loop checks the flag
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread heartbeat = new Thread(Main::beat);
        heartbeat.start();
        Thread.sleep(25);
        heartbeat.interrupt();
        heartbeat.join(1000);
        if (heartbeat.isAlive()) {
            System.out.println("heartbeat still running after " + beats + " beats");
            System.exit(2);
        }
        System.out.println("heartbeat stopped after " + beats + " beats");
    }
}
