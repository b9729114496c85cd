package eventbusconcurrentsubscriberfixed;

import com.google.common.eventbus.AllowConcurrentEvents;
import com.google.common.eventbus.AsyncEventBus;
import com.google.common.eventbus.EventBus;
import com.google.common.eventbus.Subscribe;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public class Main {
    static final class Payment {
        final long cents;

        Payment(long cents) {
            this.cents = cents;
        }
    }

    static final class Ledger {
        long total;
        int entries;

        @Subscribe
        public void record(Payment p) {
            total += p.cents;
            entries++;
        }
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        EventBus bus = new AsyncEventBus("payments", pool);
        Ledger ledger = new Ledger();
        bus.register(ledger);
        bus.post(new Payment(30));
        bus.post(new Payment(12));
        pool.shutdown();
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            System.out.println("still delivering");
        }
        if (ledger.total != 42) {
            throw new AssertionError("the ledger lost a payment: total " + ledger.total
                    + " after " + ledger.entries + " entries");
        }
        System.out.println("total " + ledger.total);
    }
}
