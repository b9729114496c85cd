package journal;

import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Orders are written to a shared StringBuffer journal and indexed in a shared Hashtable by two
 * pool threads. StringBuffer.append(Object) calls Order.toString() and Hashtable.put calls
 * Order.hashCode() while holding the buffer's or the table's lock, so a thread can be stopped
 * at a scheduling point inside the JDK's synchronized method while the other thread wants the
 * same lock. Correct under every interleaving: every write is atomic under the JDK's lock.
 */
public class Main {
    static class Order {
        String customer;
        int quantity;

        Order(String customer, int quantity) {
            this.customer = customer;
            this.quantity = quantity;
        }

        @Override
        public String toString() {
            return customer + " x" + quantity;
        }

        @Override
        public int hashCode() {
            return customer.hashCode() * 31 + quantity;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Order && ((Order) o).customer.equals(customer)
                    && ((Order) o).quantity == quantity;
        }
    }

    static final StringBuffer journal = new StringBuffer();
    static final Map<Order, String> index = new Hashtable<>();

    static void record(Order order, String clerk) {
        journal.append(order).append("; ");
        index.put(order, clerk);
    }

    public static void main(String[] args) throws Exception {
        Order[] orders = {new Order("ann", 2), new Order("bob", 1), new Order("cy", 5)};
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> {
            record(orders[0], "first");
            record(orders[1], "first");
        });
        pool.submit(() -> {
            record(orders[2], "second");
            record(orders[1], "second");
        });
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        System.out.println(journal);
        if (index.size() != 3) {
            throw new AssertionError("expected 3 orders, got " + index);
        }
    }
}
