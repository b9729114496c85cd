package lockring;

public class Main {
    static final class Account {
        int balance = 100;
        int audits;
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 5;
        Account[] accounts = new Account[n];
        for (int i = 0; i < n; i++) {
            accounts[i] = new Account();
        }
        Thread[] workers = new Thread[n];
        for (int i = 0; i < n; i++) {
            Account mine = accounts[i];
            Account next = accounts[(i + 1) % n];
            workers[i] = new Thread(() -> {
                for (int k = 0; k < 20; k++) {
                    synchronized (mine) {
                        mine.audits++;
                    }
                }
                synchronized (mine) {
                    synchronized (next) {
                        mine.balance -= 10;
                        next.balance += 10;
                    }
                }
            });
        }
        for (Thread w : workers) {
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        int total = 0;
        for (Account a : accounts) {
            total += a.balance;
        }
        System.out.println("total " + total);
    }
}
