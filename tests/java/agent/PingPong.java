/**
 * Two threads take turns through wait/notifyAll; between turns each runs Exclusive's check
 * outside the lock, which fails if the two ever run application code at the same time.
 */
public class PingPong {
    static final Object LOCK = new Object();
    static int turn;
    static int rounds;
    static long sink;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        Thread ping = new Thread(() -> play(0, n), "ping");
        Thread pong = new Thread(() -> play(1, n), "pong");
        ping.start();
        pong.start();
        ping.join();
        pong.join();
        System.out.println("rounds=" + rounds);
        assert rounds == 2 * n : "rounds = " + rounds;
    }

    static void play(int me, int n) {
        for (int i = 0; i < n; i++) {
            // Outside the lock: only rankcheck's hand-off keeps the two threads apart here.
            long v = Exclusive.run(me + 1);
            synchronized (LOCK) {
                sink += v;
                while (turn != me) {
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                sink += me;
                rounds++;
                turn = 1 - me;
                LOCK.notifyAll();
            }
        }
    }
}
