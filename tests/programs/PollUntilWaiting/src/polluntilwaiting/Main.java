package polluntilwaiting;

public class Main {
    private static final Object lock = new Object();
    private static boolean released = false;

    public static void main(String[] args) throws InterruptedException {
        Thread worker = new Thread(() -> {
            synchronized (lock) {
                while (!released) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            System.out.println("worker released");
        });
        worker.start();
        int polls = 0;
        while (worker.getState() != Thread.State.WAITING) {
            polls++;
            Thread.yield();
        }
        synchronized (lock) {
            released = true;
            lock.notifyAll();
        }
        worker.join();
        System.out.println("released after " + (polls > 0 ? "some" : "no") + " polls; worker " + worker.getState());
    }
}
