package countdown;

public class Main {
    private int count = 10;

    void countDown() {
        if (count > 0) {
            count = count - 1;
        }
        synchronized (this) {
            notifyAll();
        }
    }

    synchronized void await() throws InterruptedException {
        while (count > 0) {
            wait();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Main latch = new Main();
        for (int i = 0; i < 10; i++) {
            new Thread(latch::countDown).start();
        }
        latch.await();
        System.out.println("all counted down");
    }
}
