package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import rankcheck.junit.RankcheckTest;

class CartTest {
    private ExecutorService pool;

    @BeforeEach
    void openPool() {
        pool = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void closePool() {
        pool.shutdown();
    }

    @RankcheckTest(executions = 300)
    void everyAddIsCounted() throws Exception {
        Cart cart = new Cart();
        List<Future<?>> adds = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            adds.add(pool.submit(cart::add));
        }
        for (Future<?> f : adds) {
            f.get();
        }
        assertEquals(2, cart.items());
    }

    @RankcheckTest(executions = 300)
    void everyLockedAddIsCountedAndEveryOrderPlaced() throws Exception {
        SafeCart cart = new SafeCart();
        List<Future<?>> orders = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String id = "order-" + i;
            orders.add(pool.submit(() -> {
                cart.add();
                Orders.place(id);
            }));
        }
        for (Future<?> f : orders) {
            f.get();
        }
        assertEquals(2, cart.items());
        // Orders keeps every order since its class was loaded: two only if each execution
        // starts from fresh static state.
        assertEquals(2, Orders.placed());
    }
}
