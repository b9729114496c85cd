package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A plain JUnit 5 test, no rankcheck annotation: correct, and correct when repeated in one JVM. */
class CheckoutTest {
    private ExecutorService pool;

    @BeforeEach
    void openPool() {
        pool = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void closePool() {
        pool.shutdown();
    }

    @Test
    void lockedCartCountsEveryAdd() throws Exception {
        SafeCart cart = new SafeCart();
        List<Future<?>> adds = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            adds.add(pool.submit(cart::add));
        }
        for (Future<?> f : adds) {
            f.get();
        }
        assertEquals(2, cart.items());
    }
}
