package jdk.inventory;

import java.util.ArrayList;
import java.util.List;

/** Two clerks sell from one stock; a sale checks the stock, then takes from it. */
public class Main {
    static class Stock {
        private int units;

        Stock(int units) {
            this.units = units;
        }

        boolean sell() {
            if (units > 0) {
                units = units - 1;
                return true;
            }
            return false;
        }

        int units() {
            return units;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Stock stock = new Stock(1);
        List<Thread> clerks = new ArrayList<>();
        int[] sold = new int[2];
        for (int i = 0; i < 2; i++) {
            int clerk = i;
            clerks.add(new Thread(() -> {
                if (stock.sell()) {
                    sold[clerk]++;
                }
            }));
        }
        for (Thread t : clerks) {
            t.start();
        }
        for (Thread t : clerks) {
            t.join();
        }
        System.out.println("sold " + (sold[0] + sold[1]) + ", left " + stock.units());
        if (stock.units() < 0) {
            throw new IllegalStateException("stock went negative: " + stock.units());
        }
    }
}
