/** Two threads each write one shared field once: a handful of schedules, all correct. */
public class TwoWriters {
    static int last;

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> last = 1);
        Thread b = new Thread(() -> last = 2);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("last=" + last);
    }
}
