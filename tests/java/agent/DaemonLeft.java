/** A daemon thread runs for ever; main returns, so the program is over (as the JVM would exit). */
public class DaemonLeft {
    static long ticks;

    public static void main(String[] args) {
        Thread d = new Thread(() -> {
            while (true) {
                ticks++;
                Thread.yield();
            }
        }, "ticker");
        d.setDaemon(true);
        d.start();
        System.out.println("main done");
    }
}
