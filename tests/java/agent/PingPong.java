/** Two threads take turns through wait/notifyAll; Exclusive checks that they never overlap. */
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
            synchronized (LOCK) {
                while (turn != me) {
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                sink += Exclusive.run(me + 1);
                rounds++;
                turn = 1 - me;
                LOCK.notifyAll();
            }
        }
    }
}
