package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Correct tests that use a thread pool and never shut it down, as many projects' tests do. */
class QuoteServiceTest {
    @Test
    void quoteFromAPoolLeftOpen() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        assertEquals(42, pool.submit(() -> 40 + 2).get());
    }

    @Test
    void quotesAddUpOnAFixedPool() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Callable<Integer>> quotes = List.of(() -> 10, () -> 32);
        int total = 0;
        for (Future<Integer> quote : pool.invokeAll(quotes)) {
            total += quote.get();
        }
        assertEquals(42, total);
    }
}
