/** The classic lock-order inversion. */
public class Deadlock {
    static final Object A = new Object();
    static final Object B = new Object();

    public static void main(String[] args) throws Exception {
        Thread t1 = new Thread(() -> {
            synchronized (A) {
                synchronized (B) {
                    System.out.println("t1 has both");
                }
            }
        }, "ab");
        Thread t2 = new Thread(() -> {
            synchronized (B) {
                synchronized (A) {
                    System.out.println("t2 has both");
                }
            }
        }, "ba");
        t1.start();
        t2.start();
        t1.join();
        t2.join();
    }
}
