package loggeronce;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Order processing that logs through a logger it configures at start-up. */
public class Main {
    static final Logger LOG = Logger.getLogger("orders");

    /** Counts what reaches it. */
    static final class CountingHandler extends Handler {
        final AtomicInteger records = new AtomicInteger();

        @Override
        public void publish(LogRecord record) {
            records.incrementAndGet();
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }

    static CountingHandler configure() {
        if (LOG.getHandlers().length > 0) {
            throw new IllegalStateException(
                    "logger configured twice: " + LOG.getHandlers().length + " handler(s) already");
        }
        CountingHandler handler = new CountingHandler();
        LOG.addHandler(handler);
        LOG.setUseParentHandlers(false);
        LOG.setLevel(Level.FINE);
        return handler;
    }

    public static void main(String[] args) throws InterruptedException {
        CountingHandler handler = configure();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (int order = 1; order <= 4; order++) {
            int id = order;
            pool.execute(() -> LOG.fine("processed order " + id));
        }
        pool.shutdown();
        if (!pool.awaitTermination(1, TimeUnit.MINUTES)) throw new IllegalStateException("stuck");
        System.out.println(handler.records.get() + " records");
        if (handler.records.get() != 4) {
            throw new IllegalStateException("lost log records: " + handler.records.get());
        }
    }
}
