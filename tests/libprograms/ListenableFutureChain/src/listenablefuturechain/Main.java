package listenablefuturechain;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.ListeningExecutorService;
import com.google.common.util.concurrent.MoreExecutors;
import java.util.List;
import java.util.concurrent.Executors;

public class Main {
    static int priceOf(String item) {
        return item.length() * 10;
    }

    public static void main(String[] args) throws Exception {
        ListeningExecutorService pool =
                MoreExecutors.listeningDecorator(Executors.newFixedThreadPool(2));
        ListenableFuture<Integer> bread = pool.submit(() -> priceOf("bread"));
        ListenableFuture<Integer> milk = pool.submit(() -> priceOf("milk"));
        ListenableFuture<Integer> breadWithTax =
                Futures.transform(bread, p -> p + p / 10, MoreExecutors.directExecutor());
        ListenableFuture<Integer> milkWithTax =
                Futures.transform(milk, p -> p + p / 10, MoreExecutors.directExecutor());
        List<Integer> prices = Futures.allAsList(breadWithTax, milkWithTax).get();
        pool.shutdown();
        int total = prices.get(0) + prices.get(1);
        if (total != 99) {
            throw new IllegalStateException("total " + total + " from " + prices);
        }
        System.out.println("total " + total);
    }
}
