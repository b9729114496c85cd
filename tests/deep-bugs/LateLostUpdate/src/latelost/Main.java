package latelost;

public class Main {
    private final Object lock = new Object();
    private int total;

    void work() {
        int tally = 0;
        for (int i = 0; i < 1000; i++) {
            synchronized (lock) {
                tally++;
            }
        }
        total += tally;
    }

    public static void main(String[] args) throws InterruptedException {
        Main m = new Main();
        Thread a = new Thread(m::work);
        Thread b = new Thread(m::work);
        a.start();
        b.start();
        a.join();
        b.join();
        if (m.total != 2000) {
            throw new AssertionError("lost an update: total " + m.total);
        }
        System.out.println("total " + m.total);
    }
}
