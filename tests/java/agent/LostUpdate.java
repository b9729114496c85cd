/** Two threads increment a counter without a lock: one update can be lost. */
public class LostUpdate {
    static int count;

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(LostUpdate::increment);
        Thread b = new Thread(LostUpdate::increment);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("count=" + count);
        assert count == 2 : "lost update: count = " + count;
    }

    static void increment() {
        int c = count;
        count = c + 1;
    }
}
