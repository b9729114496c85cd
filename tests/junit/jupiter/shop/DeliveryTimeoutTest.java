package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Correct tests guarded by Jupiter timeouts, the way projects write them. */
class DeliveryTimeoutTest {
    @Test
    @Timeout(10)
    void addsUp() {
        assertEquals(2, 1 + 1);
    }

    @Test
    @Timeout(5)
    void quoteFromAWorker() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> quote = pool.submit(() -> 40 + 2);
            assertEquals(42, quote.get());
        } finally {
            pool.shutdown();
        }
    }
}
