package lang3lazyinitializer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.lang3.concurrent.ConcurrentException;
import org.apache.commons.lang3.concurrent.LazyInitializer;

public class Main {
    static final AtomicInteger made = new AtomicInteger();

    static final class Registry {
        final int number = made.incrementAndGet();
    }

    static final LazyInitializer<Registry> registry = new LazyInitializer<Registry>() {
        @Override
        protected Registry initialize() {
            return new Registry();
        }
    };

    static int lookup() {
        try {
            return registry.get().number;
        } catch (ConcurrentException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) {
        CompletableFuture<Integer> a = CompletableFuture.supplyAsync(Main::lookup);
        CompletableFuture<Integer> b = CompletableFuture.supplyAsync(Main::lookup);
        CompletableFuture<Integer> c = CompletableFuture.supplyAsync(Main::lookup);
        int sum = a.join() + b.join() + c.join();
        if (made.get() != 1 || sum != 3) {
            throw new IllegalStateException(made.get() + " registries, sum " + sum);
        }
        System.out.println("one registry");
    }
}
