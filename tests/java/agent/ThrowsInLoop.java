/** A worker that throws and catches for ever (a step-bound case), and one that dies of a throw. */
public class ThrowsInLoop {
    static int caught;

    public static void main(String[] args) throws Exception {
        boolean forever = args.length > 0 && args[0].equals("forever");
        Thread w = new Thread(() -> {
            for (int i = 0; forever || i < 3; i++) {
                try {
                    throw new IllegalStateException("round " + i);
                } catch (IllegalStateException e) {
                    caught++;
                }
            }
            throw new IllegalStateException("worker gives up after " + caught);
        }, "thrower");
        w.start();
        w.join();
    }
}
